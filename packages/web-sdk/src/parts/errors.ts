/// <reference lib="dom" />
import type { Client } from '../core/client';

/** At most this many exception events per page: an error in a loop must not flood the queue. */
const MAX_PER_PAGE = 25;
/** Stack text kept per event (the first frames are the ones that say where). */
const MAX_STACK = 4000;

/**
 * The `captureErrors` part (lazily loaded: `web-errors.js` / an ESM chunk): the page's uncaught
 * errors and unhandled promise rejections as the platform's `exception` event (core block):
 * `title` the message, `exception_type` the error's name, `exception_source` `web`, `stack_trace`
 * its stack, `event_type` where it was thrown (`<file>:<line>:<column>`) or `unhandledrejection`.
 * The same error repeated in a row is logged once.
 */
export function watchErrors(c: Client): void {
  let count = 0;
  let last = '';
  const log = (e: unknown, where: string, message?: string) => {
    const err = e instanceof Error ? e : undefined;
    const title = (message || err?.message || String(e)).slice(0, 500) || 'Error';
    const key = `${title}@${where}`;
    if (count >= MAX_PER_PAGE || key === last) return;
    count += 1;
    last = key;
    const props: Record<string, unknown> = { title, exception_type: err?.name ?? typeof e, exception_source: 'web', event_type: where };
    if (err?.stack) props.stack_trace = err.stack.slice(0, MAX_STACK);
    void c.record('exception', props);
  };
  addEventListener('error', (e) => log(e.error, e.filename ? `${e.filename}:${e.lineno}:${e.colno}` : 'error', e.message));
  addEventListener('unhandledrejection', (e) => log(e.reason, 'unhandledrejection'));
}
