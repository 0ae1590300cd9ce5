/**
 * What the library needs from its surroundings, as small ports: the browser adapters live in
 * src/browser, the unit tests pass memory ones (no test-only branches in the library itself).
 */

/** The async store's key prefix of one-off actions kept until handled (the action part writes them, the core deletes them on opt-out). */
export const ACTION = 'a:';

/** Durable storage shared by every tab of the origin (IndexedDB; a Map when it is unavailable). */
export interface AsyncStore {
  /** Every value whose key starts with `prefix`, in key order (the first `limit` of them). */
  list: <T>(prefix: string, limit?: number) => Promise<[string, T][]>;
  /** One atomic write: every put and delete happens, or none (one IndexedDB transaction). */
  write: (puts: [string, unknown][], dels: string[]) => Promise<void>;
}

/** Small synchronous state shared by the tabs (localStorage; a Map when it is unavailable). */
export interface SyncStore {
  get: <T>(key: string) => T | undefined;
  set: (key: string, value: unknown) => void;
  del: (key: string) => void;
}

export interface SendResult {
  /** HTTP status; 0 when the request never got an answer (offline, CORS, aborted). */
  status: number;
  /** Seconds from a `Retry-After` header. */
  retryAfter?: number;
  /** The answer's JSON body, when there was one. */
  body?: unknown;
  /** The answer's `Date` header (epoch ms): the platform's clock. */
  date?: number;
  /** Handed to sendBeacon: sent or not, nobody will know; the batch stays for the next visit (no backoff). */
  beacon?: true;
}

export interface Transport {
  /** POST `body` (JSON text) to `url` with the SDK key (and the user token when there is one); `unload` asks for a request that outlives the page. */
  post: (url: string, body: string, unload: boolean, userToken?: string) => Promise<SendResult>;
  /** GET `url` with the SDK key (debug mode reads its verdicts). */
  get: (url: string) => Promise<SendResult>;
}

export interface Clock {
  now: () => number;
  /** Minutes east of UTC at `ms` (so DST changes mid-session give the right offset per event). */
  offset: (ms: number) => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

/**
 * Runs `fn` only when no other tab of the app is uploading (Web Locks): skips it when the lock is
 * held, or (`wait`) waits for it.
 */
export type Exclusive = (name: string, fn: () => Promise<void>, wait?: boolean) => Promise<void>;

export interface Deps {
  clock: Clock;
  store: AsyncStore;
  shared: SyncStore;
  transport: Transport;
  exclusive: Exclusive;
  random: () => number;
  warn: (message: string, detail?: unknown) => void;
  /** Debug output (console.info in the browser). */
  debug: (message: string, detail?: unknown) => void;
  /** Storage held back while consent is pending: moves it to the device's storage once the user chose (browser/stores.ts heldStores). */
  keep?: () => Promise<void>;
}
