/// <reference lib="dom" />
/**
 * The Keys page (docs/console.md#keys): the app's keys by id and role, created, revoked, last used;
 * never a secret (GET /v1/keys has none to give). Refreshed every 5 s.
 */
import type { KeysAnswer } from '@evp/segmenter';
import { ApiRefusal, api, byId, clear, every, startPage, text } from '../../shell';
import { keyRow } from './rows';

function render(body: KeysAnswer): void {
  const now = Date.now();
  byId('app').textContent = `· ${body.app_id}`;
  const tbody = clear(byId('rows'));
  for (const k of body.data) {
    const row = keyRow(k, now);
    const tr = document.createElement('tr');
    tr.className = row.revoked ? 'revoked' : 'active';
    tr.dataset.keyId = k.id;
    for (const c of row.cells) {
      const td = text('td', c.text, c.cls);
      if (c.title) td.title = c.title;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}

/** The keys, with a refusal said as `code: message` (the code is what docs/keys.md explains). */
async function keys(): Promise<KeysAnswer> {
  try {
    // Relative to the page (/console/keys), so the console works under a path prefix too.
    return await api<KeysAnswer>('../v1/keys');
  } catch (err) {
    const error = err instanceof ApiRefusal ? err.body.error : undefined;
    throw error ? new Error(`${error.code}: ${error.message}`) : err;
  }
}

startPage({
  run: () =>
    every(5000, async () => {
      const body = await keys();
      render(body);
      return `${body.data.length} keys · updated ${new Date().toLocaleTimeString()}`;
    }),
});
