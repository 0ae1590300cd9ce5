/// <reference lib="dom" />
import type { Client } from '../core/client';

/** [good up to, poor above] per metric (web.dev's thresholds, those of Google's web-vitals library). */
const LIMITS: Record<string, [number, number]> = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] };

type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean };
type Timing = PerformanceEntry & { interactionId?: number; duration: number };

/** Observes one entry type (already buffered ones too); unsupported types are skipped. */
const observe = (type: string, fn: (e: PerformanceEntry) => void, more?: object) => {
  try {
    new PerformanceObserver((l) => l.getEntries().forEach(fn)).observe({ type, buffered: true, ...more });
  } catch {
    // The browser does not know this entry type (Safari has no layout-shift nor event timing).
  }
};

/**
 * The `webVitals` part (lazily loaded: `web-vitals.js` / an ESM chunk): LCP, INP and CLS measured as
 * Google's web-vitals library defines them (LCP: the last largest-contentful-paint before the first
 * input; CLS: the largest session window of layout shifts without recent input, windows closing
 * after 1 s without a shift or at 5 s; INP: the worst interaction's latency, or the 98th percentile
 * from 50 interactions), each logged once per page, when the page is first hidden or left, as a
 * `custom` event `web_vital` with `meta` `{ metric, value, rating, path }` (sent in the same task,
 * like every event of a page going away).
 */
export function watchVitals(c: Client): void {
  let lcp = 0;
  let stopLcp = false;
  let cls = 0;
  let win = 0;
  let first = 0;
  let prev = 0;
  const worst = new Map<number, number>();
  observe('largest-contentful-paint', (e) => void (stopLcp || (lcp = e.startTime)));
  for (const t of ['keydown', 'pointerdown']) addEventListener(t, () => (stopLcp = true), { once: true, capture: true });
  observe('layout-shift', (e) => {
    const s = e as Shift;
    if (s.hadRecentInput) return;
    // A new window after a 1 s gap or once the window spans 5 s.
    if (win && (s.startTime - prev > 1000 || s.startTime - first > 5000)) win = 0;
    if (!win) first = s.startTime;
    win += s.value;
    prev = s.startTime;
    cls = Math.max(cls, win);
  });
  observe(
    'event',
    (e) => {
      const t = e as Timing;
      if (t.interactionId) worst.set(t.interactionId, Math.max(worst.get(t.interactionId) ?? 0, t.duration));
    },
    { durationThreshold: 16 },
  );
  let sent = false;
  const report = () => {
    if (sent) return;
    sent = true;
    const all = [...worst.values()].sort((a, b) => b - a);
    const values: [string, number | undefined][] = [
      ['LCP', lcp || undefined],
      ['INP', all[Math.min(all.length - 1, Math.floor(all.length / 50))]],
      ['CLS', cls],
    ];
    c.leave(() => {
      for (const [metric, v] of values) {
        if (v === undefined) continue;
        const [good, poor] = LIMITS[metric]!;
        const value = metric === 'CLS' ? Math.round(v * 1e4) / 1e4 : Math.round(v);
        const rating = value <= good ? 'good' : value > poor ? 'poor' : 'needs-improvement';
        void c.record('custom', { name: 'web_vital' }, { metric, value, rating, path: location.pathname });
      }
    });
  };
  document.addEventListener('visibilitychange', () => void (document.visibilityState === 'hidden' && report()));
  addEventListener('pagehide', report);
}
