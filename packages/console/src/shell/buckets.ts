/**
 * A time series with a point for every step, from rows that leave out empty steps (the API's
 * `/history`, `/activity` and `/v1/inspect/health` answers): labels, and one series per value
 * column, `fill` where a step has no row.
 */
export interface Buckets {
  labels: string[];
  series: (number | null)[][];
}

export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

/**
 * The `count` steps of `stepMs` up to and including the one `now` is in. Hour steps are labelled
 * `MM-DD HHh`, minute steps `HH:MM` (UTC, as the API's times).
 */
export function buckets<R extends object, K extends keyof R & string>(
  rows: readonly R[],
  at: keyof R & string,
  stepMs: number,
  count: number,
  values: readonly K[],
  now: number,
  fill: number | null = 0,
): Buckets {
  const last = Math.floor(now / stepMs) * stepMs;
  const byTime = new Map(rows.map((r) => [Date.parse(String(r[at])), r]));
  const out: Buckets = { labels: [], series: values.map(() => []) };
  for (let t = last - (count - 1) * stepMs; t <= last; t += stepMs) {
    const iso = new Date(t).toISOString();
    out.labels.push(stepMs >= HOUR_MS ? `${iso.slice(5, 13).replace('T', ' ')}h` : iso.slice(11, 16));
    const r = byTime.get(t);
    values.forEach((v, i) => {
      const x = r === undefined ? fill : (r[v] as number | null);
      out.series[i]!.push(x);
    });
  }
  return out;
}

/** The sum of a series, its gaps as 0. */
export const total = (xs: readonly (number | null)[]): number => xs.reduce<number>((n, x) => n + (x ?? 0), 0);
