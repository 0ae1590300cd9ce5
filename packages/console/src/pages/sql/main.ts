/// <reference lib="dom" />
/**
 * The SQL page: a query over ClickHouse's HTTP interface on this base URL (`/clickhouse/`, the key
 * as X-ClickHouse-Key), its `{name:Type}` parameters as fields, the result as a table and a chart
 * of the first numeric column over the first time column; docs/analytics.md's examples one click away.
 */
import type { SqlExample } from '@evp/segmenter';
import { byId, chart, messageOf, clear, startPage, status, storedKey, table, text, unchart } from '../../shell';
import { cellText, chartColumns, queryParams, resultWords, type JsonResult } from './query';

const query = () => byId<HTMLTextAreaElement>('sql-query');
const paramInputs = () => Array.from(byId('sql-params').querySelectorAll('input'));

/** One field per parameter of the query, keeping what was typed into the ones that stay. */
function params(): void {
  const host = byId('sql-params');
  const old = new Map(paramInputs().map((i) => [i.name, i.value]));
  clear(host);
  for (const n of queryParams(query().value)) {
    const label = text('label', `${n} `);
    const input = document.createElement('input');
    input.name = n;
    input.value = old.get(n) ?? '';
    input.dataset.testid = `param-${n}`;
    label.appendChild(input);
    host.appendChild(label);
  }
}

function show(r: JsonResult): void {
  const s = byId('sql-status');
  s.className = '';
  s.textContent = resultWords(r);
  const cols = r.meta.map((m) => m.name);
  clear(byId('sql-result')).appendChild(
    table(
      cols,
      r.data.map((row) => cols.map((c) => cellText(row[c]))),
      'sql-table',
    ),
  );
  const canvas = byId<HTMLCanvasElement>('sql-chart');
  unchart(canvas);
  const xy = chartColumns(r.meta);
  if (!xy) {
    canvas.hidden = true;
    byId('sql-chart-note').textContent = 'No chart: the result needs a time column and a numeric column.';
    return;
  }
  canvas.hidden = false;
  byId('sql-chart-note').textContent = `${xy.y} over ${xy.x}`;
  canvas.dataset.x = xy.x;
  canvas.dataset.y = xy.y;
  const rows = r.data.slice().sort((a, b) => cellText(a[xy.x]).localeCompare(cellText(b[xy.x])));
  chart(canvas, {
    type: 'line',
    data: {
      labels: rows.map((row) => cellText(row[xy.x])),
      datasets: [{ label: xy.y, data: rows.map((row) => Number(row[xy.y])), borderColor: '#0969da', pointRadius: 2 }],
    },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, title: { display: true, text: xy.y } } } },
  });
}

async function run(): Promise<void> {
  const q = new URLSearchParams({ default_format: 'JSON' });
  for (const i of paramInputs()) q.set(`param_${i.name}`, i.value);
  const s = byId('sql-status');
  s.textContent = 'Running…';
  const res = await fetch(`/clickhouse/?${q.toString()}`, { method: 'POST', headers: { 'X-ClickHouse-Key': storedKey() }, body: query().value });
  const body = await res.text();
  if (!res.ok) {
    s.textContent = body.trim();
    s.className = 'error';
    return;
  }
  show(JSON.parse(body) as JsonResult);
}

async function examples(): Promise<void> {
  const res = await fetch('/console/assets/sql-examples.json');
  const host = clear(byId('sql-examples'));
  for (const x of (await res.json()) as SqlExample[]) {
    const b = text('button', x.name);
    b.type = 'button';
    b.title = x.description;
    b.dataset.example = x.name;
    b.onclick = () => {
      query().value = x.sql;
      params();
    };
    const li = document.createElement('li');
    li.append(b, text('span', ` ${x.description}`, 'meta'));
    host.appendChild(li);
  }
}

startPage({
  run: () => {
    status('Ready: queries run as this key, on its app’s rows only.');
    query().oninput = params;
    byId('sql-form').onsubmit = (ev) => {
      ev.preventDefault();
      run().catch((err: unknown) => status(`Not run: ${messageOf(err)}`, true));
    };
    void examples();
    params();
  },
});
