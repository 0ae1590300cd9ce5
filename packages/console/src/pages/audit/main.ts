/// <reference lib="dom" />
/**
 * The Access log page (docs/console.md#access-log): the app's recorded reads, newest first,
 * filtered by route, role, key, person and time as GET /v1/audit/reads takes them, a page at a
 * time, and whether the app's chain holds (GET /v1/audit/verify). Every field is shown as text.
 */
import type { AuditReadsAnswer, ChainVerdict } from '@evp/segmenter';
import { api, byId, clear, messageOf, startPage, status, table } from '../../shell';

const FILTERS = [
  ['route', 'f-route'],
  ['role', 'f-role'],
  ['key_id', 'f-key'],
  ['person', 'f-person'],
  ['from', 'f-from'],
  ['to', 'f-to'],
] as const;

/** The cursors of the pages shown so far: the last one is the page on screen. */
let cursors: (string | undefined)[] = [undefined];
let next: string | undefined;

function query(cursor: string | undefined): string {
  const q = new URLSearchParams({ limit: '50' });
  for (const [name, id] of FILTERS) {
    const v = byId<HTMLInputElement>(id).value.trim();
    // datetime-local is the browser's local time: sent as the instant it names.
    if (v) q.set(name, name === 'from' || name === 'to' ? new Date(v).toISOString() : v);
  }
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

async function show(): Promise<void> {
  try {
    const [page, chain] = await Promise.all([
      api<AuditReadsAnswer>(`../v1/audit/reads?${query(cursors[cursors.length - 1])}`),
      api<ChainVerdict>('../v1/audit/verify'),
    ]);
    byId('chain').textContent = chain.ok ? `· chain holds: ${chain.entries} entries` : `· chain BROKEN at seq ${chain.seq} (${chain.reason})`;
    byId('chain').className = chain.ok ? 'ok' : 'error';
    const rows = page.data.map((e) => [e.seq, new Date(e.at).toLocaleString(), e.route, e.role, e.key_id, e.person, e.rows, e.bytes, e.statement]);
    clear(byId('reads')).appendChild(table(['Seq', 'At', 'Route', 'Role', 'Key', 'Person', 'Rows', 'Bytes', 'Statement'], rows, 'read-table'));
    next = page.cursor;
    byId<HTMLButtonElement>('older').disabled = next === undefined;
    status(`${page.data.length} reads on page ${cursors.length} · updated ${new Date().toLocaleTimeString()}`);
  } catch (err) {
    status(`Not updating: ${messageOf(err)}`, true);
  }
}

const from = (start: (string | undefined)[]) => () => {
  cursors = start;
  void show();
};
byId('audit-filters').addEventListener('submit', (ev) => {
  ev.preventDefault();
  from([undefined])();
});
byId('newest').addEventListener('click', from([undefined]));
byId('older').addEventListener('click', () => from([...cursors, next])());

startPage({ run: from([undefined]) });
