/// <reference lib="dom" />
import type { Client } from '../core/client';
import { Pages } from '../core/pages';

/** ms from navigation start to the first contentful paint (else DOMContentLoaded): the spec's "time to open and render the first screen". */
function firstRender(): number {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  return Math.max(0, Math.round(fcp?.startTime ?? nav?.domContentLoadedEventEnd ?? performance.now()));
}

/** Runs `fn` once, after the next frame was painted, or after 1 s in a tab that paints nothing (opened in the background). */
const afterPaint = (fn: () => void) => {
  let done = false;
  const once = () => {
    if (!done) fn();
    done = true;
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 1000);
};

/**
 * The page side: automatic `app` (open with the time to first render, background / resume on
 * visibility, close on pagehide) and `page` events (every path change, SPA history included), the
 * periodic flush, the nudge poll, and delivery while the page goes away (keepalive). `start`: when
 * the landing view began (init() ran). Answers what the page does when it goes away (`close`: left,
 * else hidden), for init() to run when the page went away before the client was made.
 */
export function attach(c: Client, pollActions: () => void, start = c.deps.clock.now()): (close: boolean) => void {
  const cfg = c.cfg;
  const now = () => c.deps.clock.now();
  const app = (action: string, start_time = 0) => void c.record('app', { action, start_time });
  const pages = new Pages((e) => void c.record('page', { ...e }));
  // A hash router's route (`#/cart`) is the path's part too: each route is a page (pages.ts).
  const path = () => (location.hash.startsWith('#/') ? location.pathname + location.hash.replace(/\?.*$/, '') : location.pathname);

  if (cfg.trackApp) {
    if (document.readyState === 'complete') afterPaint(() => app('open', firstRender()));
    else addEventListener('load', () => afterPaint(() => app('open', firstRender())), { once: true });
  }
  if (cfg.trackPages) {
    pages.navigate(path(), document.title, start);
    afterPaint(() => pages.rendered(firstRender(), document.title));
    const changed = () => {
      if (pages.path === path()) return;
      const t0 = performance.now();
      pages.navigate(path(), document.title, now());
      afterPaint(() => pages.rendered(performance.now() - t0, document.title));
    };
    for (const m of ['pushState', 'replaceState'] as const) {
      const orig = history[m].bind(history);
      history[m] = (...args: Parameters<History['pushState']>) => {
        const r = orig(...args);
        try {
          changed();
        } catch {
          // Never into the app's router.
        }
        return r;
      };
    }
    addEventListener('popstate', changed);
    addEventListener('hashchange', changed);
  }

  // Going away: what is logged now leaves in this task (Client.leave), then the queue uploads.
  const away = (close: boolean) => {
    c.leave(() => {
      if (cfg.trackPages) pages.end(now(), document.title);
      if (cfg.trackApp) app(close ? 'close' : 'background');
    });
    void c.flush(true);
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') away(false);
    else {
      if (cfg.trackApp) app('resume');
      if (cfg.trackPages) pages.navigate(path(), document.title, now());
      pollActions();
    }
  });
  addEventListener('pagehide', () => away(true));
  addEventListener('pageshow', (e) => {
    // Back from the back/forward cache: the page was closed, so it opens again.
    if (!e.persisted) return;
    if (cfg.trackApp) app('open', 0);
    if (cfg.trackPages) pages.navigate(path(), document.title, now());
  });
  addEventListener('online', () => void c.uploader.retryNow());
  // Consent given or refused in another tab: this tab's held events are stored (or forgotten) too.
  addEventListener('storage', (e) => {
    if (e.key === c.consentKey) void c.consentChanged();
  });
  setInterval(() => void c.flush(), cfg.flushIntervalMs);
  if (cfg.nudges && cfg.actionPollMs > 0) {
    setInterval(() => {
      if (document.visibilityState === 'visible') pollActions();
    }, cfg.actionPollMs);
  }
  return away;
}
