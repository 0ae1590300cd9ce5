import { runInNewContext } from 'node:vm';
import { bundleWebSdk } from './bundle';
import * as sdk from './index';

/** The script build defines one global, `evp`, with the package's API, and nothing a strict CSP forbids. */
describe('script build', () => {
  it('web.js defines exactly one global, evp, with the same functions as the package; its parts (web-messages.js, web-actions.js, web-errors.js, web-context.js, web-vitals.js) add none', async () => {
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
    runInNewContext(files['web-messages.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    expect(typeof (evp._renderer as { render?: unknown }).render).toBe('function');
    runInNewContext(files['web-actions.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    expect(typeof evp._actions).toBe('function');
    runInNewContext(files['web-errors.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    expect(typeof evp._errors).toBe('function');
    runInNewContext(files['web-context.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    expect(typeof evp._context).toBe('function');
    runInNewContext(files['web-vitals.js'], sandbox);
    expect(Object.keys(sandbox)).toEqual(['evp']);
    expect(typeof evp._vitals).toBe('function');
  });

  it('uses no eval, no Function constructor, no innerHTML and no style markup', async () => {
    const files = await bundleWebSdk();
    for (const text of Object.values(files)) {
      expect(text).not.toMatch(/\beval\(|new Function\(|\binnerHTML\b|insertAdjacentHTML|<style|\.setAttribute\("style"/);
    }
  });
});
