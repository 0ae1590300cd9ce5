/// <reference lib="dom" />
import type { Exclusive, SendResult, Transport } from '../core/ports';

/**
 * fetch with the SDK key as a bearer token (and the user token as `X-EVP-User-Token`); while the page unloads, `keepalive` (the body is under
 * the 64 KB keepalive budget: batches are frozen at ≤ 60 KB). Where keepalive fetch is missing,
 * sendBeacon with the key in the `sdk_key` query parameter (the user token in `user_token`) and a text/plain body (a beacon cannot set
 * headers); a beacon's answer is never seen, so its batch stays queued and the next visit re-sends the
 * same bytes, which the platform's event ids absorb.
 */
async function answer(res: Response): Promise<SendResult> {
  // Seconds (an HTTP date, or none, is NaN: no Retry-After).
  const ra = parseFloat(res.headers.get('Retry-After')!);
  let parsed: unknown;
  try {
    parsed = await res.json();
  } catch {
    parsed = undefined;
  }
  const date = Date.parse(res.headers.get('Date')!);
  return { status: res.status, retryAfter: ra >= 0 ? ra : undefined, body: parsed, date: date || undefined };
}

export function fetchTransport(sdkKey: string): Transport {
  const auth = { Authorization: `Bearer ${sdkKey}` };
  return {
    async get(url) {
      try {
        return await answer(await fetch(url, { headers: auth, credentials: 'omit' }));
      } catch {
        return { status: 0 };
      }
    },
    async post(url, body, unload, token): Promise<SendResult> {
      const q = `?sdk_key=${encodeURIComponent(sdkKey)}${token ? `&user_token=${encodeURIComponent(token)}` : ''}`;
      // Every target browser has sendBeacon and Request (the builds' targets, bundle.ts).
      const beacon = (): SendResult => (navigator.sendBeacon(url + q, new Blob([body], { type: 'text/plain' })) ? { status: 0, beacon: true } : { status: 0 });
      if (unload && !('keepalive' in Request.prototype)) return beacon();
      try {
        // A request that never ends would hold the upload lock of every tab: 30 s at most.
        const signal = !unload && typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(30_000) : undefined;
        return await answer(
          await fetch(url, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json', ...(token ? { 'X-EVP-User-Token': token } : {}) },
            body,
            keepalive: unload,
            credentials: 'omit',
            signal,
          }),
        );
      } catch {
        // While the page unloads a refused keepalive fetch (over the browser's in-flight budget) is
        // rejected at once, in this task: the beacon still goes out.
        return unload ? beacon() : { status: 0 };
      }
    },
  };
}

/** One uploader across the tabs: a Web Lock taken only if free, or (`wait`: the app asked to flush) once free. */
export const webLock: Exclusive = async (name, fn, wait) => {
  const locks = navigator.locks;
  if (!locks) return fn();
  await locks.request(name, { ifAvailable: !wait }, async (lock) => {
    if (lock) await fn();
  });
};
