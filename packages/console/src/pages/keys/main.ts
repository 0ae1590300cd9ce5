/// <reference lib="dom" />
/**
 * The Keys page (docs/console.md#keys): the app's keys by id and role, created, revoked, last used;
 * then its user token policy, signing keys and the last hour's calls per outcome, drawn as bars.
 * Never a secret (GET /v1/keys and /v1/keys/user-tokens have none to give). Refreshed every 5 s.
 */
import type { KeysAnswer, UserTokensAnswer } from '@evp/segmenter';
import { ApiRefusal, api, byId, chart, clear, every, startPage, table, text } from '../../shell';
import { keyRow } from './rows';
import { OUTCOMES, policySentence, tokenKeyCells } from './tokens';

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

function renderTokens(body: UserTokensAnswer): void {
  const now = Date.now();
  byId('token-policy').textContent = `· ${body.policy}`;
  byId('token-sentence').textContent = policySentence(body);
  const keys = clear(byId('token-keys'));
  keys.appendChild(
    body.keys.length
      ? table(
          ['Kid', 'Alg', 'Created', 'State'],
          body.keys.map((k) => tokenKeyCells(k, now)),
          'token-key-table',
        )
      : text('p', 'No user_token keys in the keys file for this app.', 'meta'),
  );
  const counts = OUTCOMES.map((o) => body.last_hour[o.outcome]);
  clear(byId('outcomes')).appendChild(
    table(
      ['Outcome', 'Calls', 'Under enforce'],
      OUTCOMES.map((o, i) => [o.label, counts[i], o.refused ? 'refused' : 'passes']),
      'outcome-table',
    ),
  );
  const c = byId<HTMLCanvasElement>('outcomes-chart');
  c.setAttribute('aria-label', OUTCOMES.map((o, i) => `${o.outcome} ${counts[i]}`).join(', '));
  chart(c, {
    type: 'bar',
    data: {
      labels: OUTCOMES.map((o) => o.label),
      datasets: [{ label: 'calls, last hour', data: counts, backgroundColor: OUTCOMES.map((o) => (o.refused ? '#cf222e' : '#1a7f37')) }],
    },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
  });
}

/** An answer, with a refusal said as `code: message` (the code is what docs/keys.md explains). */
async function get<T>(path: string): Promise<T> {
  try {
    // Relative to the page (/console/keys), so the console works under a path prefix too.
    return await api<T>(path);
  } catch (err) {
    const error = err instanceof ApiRefusal ? err.body.error : undefined;
    throw error ? new Error(`${error.code}: ${error.message}`) : err;
  }
}

startPage({
  run: () =>
    every(5000, async () => {
      const [body, tokens] = await Promise.all([get<KeysAnswer>('../v1/keys'), get<UserTokensAnswer>('../v1/keys/user-tokens')]);
      render(body);
      renderTokens(tokens);
      return `${body.data.length} keys · updated ${new Date().toLocaleTimeString()}`;
    }),
});
