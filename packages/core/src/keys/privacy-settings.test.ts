import { parseKeysFile } from './file';
import { KeyRing } from './ring';

const sdk = { id: 'sdk', app_id: 'app-1', role: 'sdk', key: 'sdk_key_0123456789' };
const SECRET_V1 = 'app-1 pseudonym key, version 1, 32+ bytes';
const SECRET_V2 = 'app-1 pseudonym key, version 2, 32+ bytes';
const text = (file: object) => JSON.stringify(file);
const ring = (file: object) => new KeyRing(parseKeysFile(text(file), 'keys.json'));

describe('the keys file: privacy policy and pseudonym keys', () => {
  it('gives every app the defaults when it says nothing: keep, except free text in health blocks', () => {
    const p = ring({ keys: [sdk] }).privacy('app-1');
    expect(p).toEqual({
      classes: { direct_identifier: 'keep', quasi_identifier: 'keep', health: 'keep', contact: 'keep', free_text: 'keep' },
      health: { direct_identifier: 'keep', quasi_identifier: 'keep', health: 'keep', contact: 'keep', free_text: 'drop' },
      unknownInHealth: 'keep',
    });
  });

  it('reads an app’s policy: classes apply in health blocks too unless health_blocks says otherwise; the newest key pseudonymises', () => {
    const r = ring({
      keys: [sdk],
      apps: {
        'app-1': {
          privacy: { classes: { direct_identifier: 'pseudonymise', contact: 'drop' }, health_blocks: { free_text: 'keep' }, unknown_properties: 'drop' },
        },
      },
      pseudonym_keys: [
        { app_id: 'app-1', version: 2, key: SECRET_V2 },
        { app_id: 'app-1', version: 1, key: SECRET_V1 },
      ],
    });
    const p = r.privacy('app-1');
    expect(p.classes).toMatchObject({ direct_identifier: 'pseudonymise', contact: 'drop', free_text: 'keep' });
    expect(p.health).toMatchObject({ direct_identifier: 'pseudonymise', contact: 'drop', free_text: 'keep' });
    expect(p.unknownInHealth).toBe('drop');
    expect(p.key).toEqual({ version: 2, secret: SECRET_V2 });
    // Older versions stay readable: erasure recomputes the pseudonyms of rows made with them.
    expect(r.pseudonymKey('app-1', 1)).toEqual({ version: 1, secret: SECRET_V1 });
    expect(r.privacy('app-2').key).toBeUndefined();
    // Every version's pseudonym, newest first (erasure looks for all of them).
    expect(r.pseudonymsOf('app-1', 'PAT-0042')).toEqual([
      // printf '%s' PAT-0042 | openssl dgst -sha256 -hmac '<SECRET_Vn>' -binary | head -c 16 | basenc --base64url | tr -d =
      'p2:F3eTrL6CJrAWbkHiPcb36w',
      'p1:JqmG-YZ2l_phn5QHK0IpbA',
    ]);
    expect(r.pseudonymsOf('app-2', 'PAT-0042')).toEqual([]);
  });

  it.each([
    ['a key under 32 bytes', { pseudonym_keys: [{ app_id: 'app-1', version: 1, key: 'k'.repeat(31) }] }, 'pseudonym_keys.0.key: at least 32 bytes'],
    [
      'a version twice',
      {
        pseudonym_keys: [
          { app_id: 'app-1', version: 1, key: SECRET_V1 },
          { app_id: 'app-1', version: 1, key: SECRET_V2 },
        ],
      },
      'two pseudonym keys of version 1',
    ],
    [
      'pseudonymising without a key',
      { apps: { 'app-1': { privacy: { health_blocks: { health: 'pseudonymise' } } } } },
      'apps.app-1.privacy: pseudonymises a class but app app-1 has no pseudonym_keys entry',
    ],
    ['an unknown action', { apps: { 'app-1': { privacy: { classes: { health: 'hash' } } } } }, 'apps.app-1.privacy.classes.health'],
    ['a policy for `none`', { apps: { 'app-1': { privacy: { classes: { none: 'drop' } } } } }, 'apps.app-1.privacy.classes'],
  ])('refuses %s, never showing a key', (_what, extra, message) => {
    let err: Error | undefined;
    try {
      parseKeysFile(text({ keys: [sdk], ...extra }), 'keys.json');
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toContain(message);
    expect(err?.message).not.toContain(SECRET_V1.slice(0, 10));
    expect(err?.message).not.toContain('kkkk');
  });

  it('keeps one table object until a reload applies a new file (the validator’s workers get it only then)', () => {
    const r = ring({ keys: [sdk] });
    const before = r.privacyTable();
    expect(r.privacyTable()).toBe(before);
    r.replace(parseKeysFile(text({ keys: [sdk], apps: { 'app-1': { privacy: { classes: { contact: 'drop' } } } } }), 'keys.json'));
    expect(r.privacyTable()).not.toBe(before);
    expect(r.privacy('app-1').classes.contact).toBe('drop');
  });
});
