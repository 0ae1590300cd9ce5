const DAY_MS = 86_400_000;

// The sink formats several times per row; events of a batch mostly share a day, so the date part
// is computed once per day and the time of day with integer arithmetic (Date#toISOString per value
// was a measurable part of the sink's cost).
let cachedDay = Number.NaN;
let cachedDate = '';

// Zero-padded parts, built once: no number-to-string conversion or padding per value.
const PAD2: readonly string[] = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
const PAD3: readonly string[] = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * Epoch ms (an integer) → `YYYY-MM-DD hh:mm:ss.sss` in UTC, the text ClickHouse reads for
 * DateTime64(3, 'UTC') whatever the server's time zone. Years 0–9999 only (callers check ranges).
 */
export function formatDateTime64(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDate = new Date(day * DAY_MS).toISOString().slice(0, 10);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${cachedDate} ${PAD2[h]}:${PAD2[m]}:${PAD2[s]}.${PAD3[rest - s * 1000]}`;
}

/** ClickHouse's text of a DateTime64(3, 'UTC') (`YYYY-MM-DD hh:mm:ss.sss`) → RFC 3339 UTC with milliseconds. */
export const chToRfc3339 = (text: string): string => `${text.replace(' ', 'T')}Z`;
