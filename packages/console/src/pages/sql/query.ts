/** ClickHouse's JSON format answer (`default_format=JSON`), as much of it as the page reads. */
export interface JsonResult {
  meta: { name: string; type: string }[];
  data: Record<string, unknown>[];
  rows: number;
  statistics?: { elapsed: number };
}

/** The `{name:Type}` parameters of a query, in order of first use. */
export function queryParams(sql: string): string[] {
  return [...new Set([...sql.matchAll(/\{(\w+):[^}]+\}/g)].map((m) => m[1]!))];
}

const TIME = /^(Nullable\()?(Date|DateTime)/;
const NUMBER = /^(Nullable\()?(U?Int|Float|Decimal)/;

/** What the chart draws: the first numeric column over the first time column, or nothing without both. */
export function chartColumns(meta: JsonResult['meta']): { x: string; y: string } | null {
  const time = meta.find((m) => TIME.test(m.type));
  const num = meta.find((m) => NUMBER.test(m.type));
  return time && num ? { x: time.name, y: num.name } : null;
}

/** A cell as the table shows it: objects and arrays as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

/** The status line of a result: "3 rows in 0.002 s". */
export const resultWords = (r: JsonResult): string =>
  `${r.rows}${r.rows === 1 ? ' row' : ' rows'}${r.statistics ? ` in ${r.statistics.elapsed.toFixed(3)} s` : ''}`;
