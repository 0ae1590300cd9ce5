const DAY_MS = 86_400_000;

// The sink formats several times per row; events of a batch mostly share a day, so the date part
// is computed once per day and the time of day with integer arithmetic (Date#toISOString per value
// was a measurable part of the sink's cost).
let cachedDay = Number.NaN;
let cachedDate = '';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

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
  return `${cachedDate} ${pad2(h)}:${pad2(m)}:${pad2(s)}.${pad3(rest - s * 1000)}`;
}
