import { runInNewContext } from 'node:vm';
import { bundleWebSdk } from './bundle';
import * as sdk from './index';

/** The script build defines one global, `evp`, with the package's API, and nothing a strict CSP forbids. */
describe('script build', () => {
  it('web.js defines exactly one global, evp, with the same functions as the package; its parts (web-messages.js, web-actions.js, web-errors.js, web-context.js, web-vitals.js, web-split.js) add none', async () => {
    const files = await bundleWebSdk();
    const sandbox: Record<string, unknown> = {};
    runInNewContext(files['web.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    const evp = sandbox.evp as Record<string, unknown>;
    expect(Object.keys(evp).sort()).toEqual(
      [
        'catalog',
        'fetchActions',
        'flush',
        'identify',
        'init',
        'onAction',
        'onUserTokenExpired',
        'optOut',
        'register',
        'reset',
        'respond',
        'setConsent',
        'setUserToken',
        'showInAppMessage',
        'status',
        'track',
        'trackCustom',
        'unregister',
      ].sort(),
    );
    // The package exports the same functions by name.
    for (const k of Object.keys(evp)) expect(typeof (sdk as unknown as Record<string, unknown>)[k]).toBe('function');
    // Each part registers itself on evp (and adds no global).
    const parts = {
      'web-messages.js': '_renderer',
      'web-actions.js': '_actions',
      'web-errors.js': '_errors',
      'web-context.js': '_context',
      'web-vitals.js': '_vitals',
      'web-split.js': '_split',
    } as const;
    for (const [file, member] of Object.entries(parts)) {
      runInNewContext(files[file as keyof typeof parts], sandbox);
      expect(Object.keys(sandbox)).toEqual(['evp']);
      expect(evp[member]).toBeDefined();
    }
    expect(typeof (evp._renderer as { render?: unknown }).render).toBe('function');
  });

  it('uses no eval, no Function constructor, no innerHTML and no style markup', async () => {
    const files = await bundleWebSdk();
    for (const text of Object.values(files)) {
      expect(text).not.toMatch(/\beval\(|new Function\(|\binnerHTML\b|insertAdjacentHTML|<style|\.setAttribute\("style"/);
    }
  });
});
