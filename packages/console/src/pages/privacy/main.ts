/// <reference lib="dom" />
/**
 * The Privacy page (docs/console.md#privacy): erasure requests with each store's state, step times
 * and counts, refreshed every second while one is not final; erasure (confirmed, naming how many
 * ids), exports with their download, suppressions and their lift. Ids and hashes are shown as text.
 */
import type { DataAnswer, ErasureRequest, ExportRequest, Suppression } from '@evp/segmenter';
import { api, byId, clear, every, messageOf, startPage, status, storedKey, table, text } from '../../shell';
import { confirmed } from './confirm';

const FINAL = ['completed', 'failed'];
const ids = (id: string) =>
  byId<HTMLTextAreaElement>(id)
    .value.split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
const time = (iso?: string) => (iso ? new Date(iso).toLocaleTimeString() : '');

function renderErasures(list: ErasureRequest[]): string {
  const box = clear(byId('erasures'));
  for (const r of list) {
    const done = r.stores.filter((s) => FINAL.includes(s.state)).length;
    const div = document.createElement('div');
    div.dataset.erasureId = r.id;
    div.dataset.state = r.state;
    div.appendChild(text('h3', `${r.state} · ${done} of ${r.stores.length} stores done · ${r.ids.user} user, ${r.ids.patient} patient ids`, 'state'));
    div.appendChild(text('p', `${r.id} · created ${time(r.created_at)} · ${r.steps.map((s) => `${s.state} ${time(s.at)}`).join(' → ')}`, 'meta'));
    div.appendChild(
      table(
        ['Store', 'State', 'Steps', 'Before', 'After', 'On disk'],
        r.stores.map((s) => [
          s.store,
          s.state,
          s.steps.map((x) => `${x.state} ${time(x.at)}`).join(' → '),
          s.before,
          s.after,
          s.after_physical ?? s.keys_after,
        ]),
        'stores',
      ),
    );
    for (const line of [
      ...(r.failure ? [`Failed: ${r.failure.message ?? r.failure.stores.join(', ')}`] : []),
      ...r.not_covered.map((n) => `Not covered: ${n}`),
    ])
      div.appendChild(text('p', line, 'meta'));
    box.appendChild(div);
  }
  const open = list.filter((r) => !FINAL.includes(r.state)).length;
  byId('erasure-progress').textContent = open ? `· ${open} in progress` : '';
  return open ? `${open} of ${list.length} erasures in progress` : `${list.length} erasures, all final`;
}

/** An export's rows as a file: fetched with the key (never in the URL), then saved from memory. */
async function download(id: string): Promise<void> {
  const res = await fetch(`../v1/privacy/exports/${id}/data`, { headers: { Authorization: `Bearer ${storedKey()}` } });
  if (!res.ok) return status(`Download refused: ${((await res.json()) as { error?: { code?: string } }).error?.code ?? res.status}`, true);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(await res.blob());
  a.download = `export-${id}.ndjson`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

function renderExports(list: ExportRequest[]): void {
  const rows = list.map((e) => {
    const b = text('button', 'Download');
    b.type = 'button';
    b.dataset.testid = `download-${e.id}`;
    b.disabled = e.state !== 'completed';
    b.addEventListener('click', () => void download(e.id));
    return [e.id, e.id_kind, e.state, e.rows, time(e.created_at), time(e.updated_at), b];
  });
  clear(byId('exports')).appendChild(table(['Id', 'Kind', 'State', 'Rows', 'Created', 'Updated', ''], rows, 'export-table'));
}

function renderSuppressions(list: Suppression[]): void {
  clear(byId('suppressions')).appendChild(
    table(
      ['Kind', 'Id hash', 'Erasure', 'Since'],
      list.map((s) => [s.kind, s.id_hash, s.request_id, new Date(s.at).toLocaleString()]),
      'suppression-table',
    ),
  );
}

let dirty = true;
let open = false;
let last = 0;
let said = '';
const act = (what: string, call: () => Promise<unknown>) => async () => {
  try {
    await call();
    status(`${what}: done`);
  } catch (err) {
    status(`${what}: ${messageOf(err)}`, true);
  }
  dirty = true;
};

confirmed(
  'erase',
  () => {
    const [u, p] = [ids('erase-users'), ids('erase-patients')];
    return u.length + p.length ? `Erase all data of ${u.length + p.length} ids (${u.length} user, ${p.length} patient)? This cannot be undone.` : undefined;
  },
  act('Erasure', () => api('../v1/privacy/erasures', { method: 'POST', body: { user_ids: ids('erase-users'), patient_ids: ids('erase-patients') } })),
);
confirmed(
  'lift',
  () => `Lift the suppression of user ${byId<HTMLInputElement>('lift-id').value}? Their data is taken again from now on.`,
  act('Lift', () => api(`../v1/privacy/suppressions/${encodeURIComponent(byId<HTMLInputElement>('lift-id').value)}`, { method: 'DELETE' })),
);
byId('export-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const kind = byId<HTMLSelectElement>('export-kind').value;
  void act('Export', () => api('../v1/privacy/exports', { method: 'POST', body: { [kind]: byId<HTMLInputElement>('export-id').value } }))();
});

startPage({
  run: () => {
    dirty = true;
    // Every second while an erasure or export is not final (or the page just acted), else every 10 s.
    every(1000, async () => {
      if (!dirty && !open && Date.now() - last < 10_000) return said;
      dirty = false;
      last = Date.now();
      const [e, x, s] = await Promise.all([
        api<DataAnswer<ErasureRequest>>('../v1/privacy/erasures'),
        api<DataAnswer<ExportRequest>>('../v1/privacy/exports'),
        api<DataAnswer<Suppression>>('../v1/privacy/suppressions'),
      ]);
      said = renderErasures(e.data);
      renderExports(x.data);
      renderSuppressions(s.data);
      open = [...e.data, ...x.data].some((r) => !FINAL.includes(r.state));
      return (said = `${said} · ${x.data.length} exports · updated ${new Date().toLocaleTimeString()}`);
    });
  },
});
