/**
 * Every public function goes through this: the library never throws into the app, also not from a
 * promise it returns (a failure resolves to `fallback` and is reported through `warn`).
 */
export function guard<A extends unknown[], R>(warn: (m: string, e: unknown) => void, name: string, fn: (...a: A) => R, fallback: Awaited<R>): (...a: A) => R {
  return (...a: A): R => {
    try {
      const r = fn(...a);
      if (r instanceof Promise) {
        return r.catch((e: unknown) => {
          warn(`${name} failed`, e);
          return fallback;
        }) as R;
      }
      return r;
    } catch (e) {
      warn(`${name} failed`, e);
      return fallback;
    }
  };
}
