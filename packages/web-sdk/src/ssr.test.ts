/**
 * Server-side rendering: importing the library in Node (no window, no document, no IndexedDB)
 * touches nothing, init() is a no-op, and every function answers its harmless value.
 */
import * as sdk from './index';

describe('SSR import', () => {
  it('imports and calls every function without a window', async () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    expect(() => sdk.init({ sdkKey: 'sdk_x', apiUrl: 'https://x/v1' })).not.toThrow();
    await expect(sdk.track('page', { path: '/', title: 'Home', duration: 1, render_time: 2 })).resolves.toBeUndefined();
    await expect(sdk.trackCustom('wishlist_shared', { items: 3 })).resolves.toBeUndefined();
    await expect(sdk.identify('login', 'u1')).resolves.toBeUndefined();
    await expect(sdk.catalog('drug', { id: 'd1', name: 'Paracetamol 500 mg' })).resolves.toBeUndefined();
    await expect(sdk.fetchActions({ type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' })).resolves.toEqual([]);
    await expect(sdk.showInAppMessage('cart')).resolves.toBe(false);
    await expect(sdk.setConsent('granted')).resolves.toBeUndefined();
    await expect(sdk.flush()).resolves.toBeUndefined();
    expect(sdk.reset()).toBeUndefined();
    expect(typeof sdk.onAction(() => undefined)).toBe('function');
    await expect(sdk.status()).resolves.toBeUndefined();
  });

  it('never throws into the app, even for nonsense arguments: every function answers its harmless value', async () => {
    const anyEvp = sdk.evp as unknown as Record<string, (...a: unknown[]) => unknown>;
    const harmless: Record<string, unknown> = { fetchActions: [], showInAppMessage: false, onAction: expect.any(Function) };
    expect(Object.keys(anyEvp).length).toBeGreaterThan(10);
    for (const k of Object.keys(anyEvp)) {
      for (const args of [
        [null, undefined, 42],
        [Symbol('x')],
        [
          {
            toString: () => {
              throw new Error('nonsense');
            },
          },
        ],
      ]) {
        let r: unknown;
        expect(() => (r = anyEvp[k]!(...args))).not.toThrow();
        expect({ [k]: await r }).toEqual({ [k]: k in harmless ? harmless[k] : undefined });
      }
    }
  });
});
