import { parseKeysFile } from './file';
import { DEFAULT_RETENTION } from './retention';
import { KeyRing } from './ring';

const sdk = { id: 'sdk', app_id: 'app-1', role: 'sdk', key: 'sdk_key_0123456789' };
const file = (apps: object) => parseKeysFile(JSON.stringify({ keys: [sdk], apps }), 'keys.json');

describe('retention per app in the keys file', () => {
  it('gives the documented defaults to an app that sets none', () => {
    const ring = new KeyRing(file({}));
    expect(ring.retention('app-1')).toEqual({ events: 0, rejected: 30, catalogs: 0, action_log: 0, history: 0 });
    expect(ring.retention('unknown-app')).toBe(DEFAULT_RETENTION);
  });

  it('reads days and the explicit "forever" (0) over the defaults', () => {
    const ring = new KeyRing(file({ 'app-1': { retention: { events: 'forever', rejected: 7, catalogs: 365 } } }));
    expect(ring.retention('app-1')).toEqual({ events: 0, rejected: 7, catalogs: 365, action_log: 0, history: 0 });
  });

  it('applies a changed file at once (a reload), without a restart', () => {
    const ring = new KeyRing(file({ 'app-1': { retention: { events: 90 } } }));
    expect(ring.retention('app-1').events).toBe(90);
    ring.replace(file({ 'app-1': { retention: { events: 30 }, user_tokens: 'report' } }));
    expect(ring.retention('app-1').events).toBe(30);
    ring.replace(file({}));
    expect(ring.retention('app-1').events).toBe(0);
  });

  it('lists every app the file names, by a key or by settings only, sorted; a reload changes the list', () => {
    const ring = new KeyRing(file({ 'app-0': { retention: { history: 30 } }, 'app-2': { user_tokens: 'report' } }));
    expect(ring.apps()).toEqual(['app-0', 'app-1', 'app-2']);
    ring.replace(file({}));
    expect(ring.apps()).toEqual(['app-1']);
  });

  it.each([
    [{ events: 0 }, 'apps.app-1.retention.events'],
    [{ events: 1.5 }, 'apps.app-1.retention.events'],
    [{ events: 65_536 }, 'apps.app-1.retention.events'],
    [{ events: 'never' }, 'apps.app-1.retention.events'],
    [{ segments: 30 }, 'apps.app-1.retention'],
  ])('refuses %j, naming the path', (retention, path) => {
    expect(() => file({ 'app-1': { retention } })).toThrow(path);
  });
});
