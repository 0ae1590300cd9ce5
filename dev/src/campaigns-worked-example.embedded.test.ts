import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KeyRing, createLogger } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';

// docs/campaigns.md, "Worked example", stays true: its shell block is parsed statement by statement
// and every request in it is sent, as written, to an embedded pipeline composed as `npm start`
// composes it; the answers are checked. The parser knows only the few shell forms the example uses,
// and refuses any other statement, so an edit the test cannot follow fails here.

const doc = readFileSync(resolve(__dirname, '../../docs/campaigns.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Worked example'), doc.indexOf('## The campaign document'));
const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const pulledExcerpt = JSON.parse(/Step 7 answers[\s\S]*?```json\n([\s\S]*?)```/.exec(section)?.[1] ?? 'null') as { data: Record<string, any>[] };

const SDK_KEY = 'sdk_worked_example_0123456789';
const API_KEY = 'api_worked_example_0123456789';
/** What `"${SDK[@]}"` and `"${API[@]}"` expand to here: the key to send. */
const KEY_MARK = '\u0000key:';

/** Statements of a script: a newline ends one unless inside single quotes; comments dropped. */
function statements(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") quoted = !quoted;
    if (!quoted && c === '#' && (cur === '' || /\s/.test(cur[cur.length - 1] as string))) {
      while (i < text.length && text[i] !== '\n') i++;
      i--;
      continue;
    }
    if (!quoted && c === '\n') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

type Token = string | { pipe: true };

/** Shell words: single quotes literal, double quotes and bare words expand `$NAME`, `${NAME}` and `${SDK[@]}`; `|` is a token. */
function words(command: string, vars: Record<string, string>): Token[] {
  const out: Token[] = [];
  let word: string | undefined;
  const expand = (from: number): [string, number] => {
    const m = /^\$(?:\{(\w+)\[@\]\}|\{(\w+)\}|(\w+))/.exec(command.slice(from));
    if (!m) return ['$', from + 1];
    if (m[1]) return [KEY_MARK + m[1], from + m[0].length];
    const name = (m[2] ?? m[3]) as string;
    if (!(name in vars)) throw new Error(`the example reads $${name} before setting it`);
    return [vars[name] as string, from + m[0].length];
  };
  for (let i = 0; i < command.length;) {
    const c = command[i] as string;
    if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
      i++;
    } else if (c === '|') {
      if (word !== undefined) out.push(word);
      word = undefined;
      out.push({ pipe: true });
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      while (command[i] !== '"') {
        if (command[i] === '$') {
          const [v, next] = expand(i);
          word += v;
          i = next;
        } else if (command[i] === '\\' && /["\\$`]/.test(command[i + 1] ?? '')) {
          word += command[i + 1];
          i += 2;
        } else word += command[i++];
      }
      i++;
    } else if (c === '$') {
      const [v, next] = expand(i);
      word = (word ?? '') + v;
      i = next;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The documented `json` helper: a property path (`.id`, `.data[0].payload.internal.ref`) of a JSON text. */
function jsonPath(text: string, path: string): string {
  let v: any = JSON.parse(text);
  for (const m of path.matchAll(/\.(\w+)|\[(\d+)\]/g)) v = v?.[m[1] ?? Number(m[2])];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

interface Sent {
  method: string;
  path: string;
  status: number;
  text: string;
  body: Record<string, any>;
}

describe('docs/campaigns.md, "Worked example", on the embedded pipeline', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('workedexample').replace(/-/g, '_') });

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      // The app and keys npm start creates (dev/src/dev-keys.ts): app demo-app, one SDK and one API key.
      keys: new KeyRing({
        keys: [
          { id: 'demo-sdk', app_id: 'demo-app', role: 'sdk', key: SDK_KEY },
          { id: 'demo-api', app_id: 'demo-app', role: 'api', key: API_KEY },
        ],
      }),
      logger: createLogger('worked-example', 'silent'),
      sinkFlushMs: 50,
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  /** One documented curl: its method, URL, key and body, sent as written. */
  async function curl(args: string[]): Promise<Sent> {
    let method = 'GET';
    let url: string | undefined;
    let key: string | undefined;
    let body: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-s') continue;
      else if (a === '-X') method = args[++i] as string;
      else if (a === '-d') body = args[++i];
      else if (a.startsWith(KEY_MARK)) key = a.slice(KEY_MARK.length) === 'SDK' ? SDK_KEY : API_KEY;
      else if (a.startsWith('http')) url = a;
      else throw new Error(`a curl argument the test does not know: ${a}`);
    }
    if (!url || !key) throw new Error(`a curl without a URL or a key: ${args.join(' ')}`);
    const res = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return { method, path: url.slice(pipeline.baseUrl.length), status: res.status, text, body: JSON.parse(text) as Record<string, any> };
  }

  /**
   * A documented request: `curl …` sent once, or `until_has TEXT… -- curl …` repeated (the example's
   * helper: up to 30 s there, 60 s here) until the answer's text holds every TEXT.
   */
  async function request(args: string[]): Promise<Sent> {
    if (args[0] === 'curl') return curl(args.slice(1));
    const dashes = args.indexOf('--');
    if (args[0] !== 'until_has' || dashes < 2 || args[dashes + 1] !== 'curl') throw new Error(`a request the test does not know: ${args.join(' ')}`);
    const wanted = args.slice(1, dashes);
    return waitFor(async () => ((s) => (wanted.every((w) => s.text.includes(w)) ? s : undefined))(await curl(args.slice(dashes + 2))), {
      timeoutMs: 60_000,
      what: `an answer holding ${wanted.join(' and ')}`,
    });
  }

  it('runs every documented request with the documented outcome', async () => {
    const vars: Record<string, string> = { BASE: pipeline.baseUrl };
    const sent: Sent[] = [];
    const list = statements(script);
    expect(list.length).toBeGreaterThan(15);
    for (const st of list) {
      const capture = /^([A-Z_]+)=\$\(([\s\S]*)\)$/.exec(st);
      if (capture) {
        const [, name, inner] = capture as unknown as [string, string, string];
        const tokens = words(inner, vars);
        const pipe = tokens.findIndex((t) => typeof t !== 'string');
        const head = (pipe < 0 ? tokens : tokens.slice(0, pipe)) as string[];
        const path = pipe < 0 ? undefined : (tokens.slice(pipe + 1) as string[]);
        let text: string;
        if (head[0] === 'now' && head.length === 1) text = new Date().toISOString().replace('T', ' ').slice(0, 23);
        else if (head[0] === 'curl' || head[0] === 'until_has') {
          const s = await request(head);
          sent.push(s);
          text = s.text;
        } else if (head[0] === 'echo' && head.length === 2) text = head[1] as string;
        else throw new Error(`a statement the test does not know: ${st}`);
        if (path) {
          expect(path[0]).toBe('json');
          text = jsonPath(text, path[1] as string);
        }
        vars[name] = text;
      } else if (st.startsWith('curl ') || st.startsWith('until_has ')) sent.push(await request(words(st, vars) as string[]));
      else if (/^[A-Z_]+=/.test(st) || /^\w+\(\) \{/.test(st) || /^echo "\$\w+"$/.test(st)) continue;
      else throw new Error(`a statement the test does not know: ${st}`);
    }

    const at = (method: string, path: string) =>
      sent.filter((s) => s.method === method && s.path === path).map((s): [number, Record<string, any>] => [s.status, s.body]);
    const campaignId = vars.CAMPAIGN_ID as string;
    expect(at('POST', '/v1/ingest/catalog/user')).toEqual([[200, expect.objectContaining({ accepted: 1 })]]);
    expect(at('POST', '/v1/ingest/catalog/drug')).toEqual([[200, expect.objectContaining({ accepted: 1 })]]);
    expect(at('POST', '/v1/segments')).toEqual([[201, expect.objectContaining({ id: vars.SEGMENT_ID })]]);
    const [[created, campaign]] = at('POST', '/v1/campaigns') as [[number, Record<string, any>]];
    expect([created, campaign.id, campaign.state, campaign.document.trigger]).toEqual([201, campaignId, 'draft', { segment_entry: vars.SEGMENT_ID }]);
    const content = { title: 'Amoxicillin is ready', body: 'Hi Amina, your refill is waiting.' };
    expect(at('POST', '/v1/campaigns/preview')).toEqual([
      [200, expect.objectContaining({ user_id: 'user-a', outcome: 'requested', action: expect.objectContaining({ content }) })],
    ]);
    expect(at('POST', `/v1/campaigns/${campaignId}/resume`)).toEqual([[200, expect.objectContaining({ state: 'active' })]]);
    expect(at('POST', `/v1/campaigns/${campaignId}/end`)).toEqual([[200, expect.objectContaining({ state: 'ended' })]]);
    expect(at('POST', '/v1/ingest/log').map(([status, body]) => [status, body.accepted])).toEqual([
      [200, 1],
      [200, 2],
    ]);

    // The pull: the action the segment entry triggered, personalised, with the variant's action_id; the documented excerpt matches it but for the ids.
    const [[pullStatus, pulled]] = at('POST', '/v1/action/sdk/pull') as [[number, Record<string, any>]];
    const action = pulled.data[0];
    const actionId = campaign.action_ids[0] as number;
    expect([pullStatus, pulled.data.length, action.payload.internal.action_id, vars.REF, vars.REF_TIME]).toEqual([
      200,
      1,
      actionId,
      `${action.payload.internal.inv_id}:${actionId}`,
      action.payload.internal.ref_time,
    ]);
    const excerpt = pulledExcerpt.data[0] as Record<string, any>;
    expect([action.user_id, action.payload.content, action.payload.tags]).toEqual([excerpt.user_id, excerpt.payload.content, excerpt.payload.tags]);

    // The report, as the prose under the example reads it.
    const [[reportStatus, report]] = at('GET', `/v1/campaigns/${campaignId}/report`) as [[number, Record<string, any>]];
    const zeros = { shown: 0, open: 0, discard: 0, block: 0, error: 0, expired: 0 };
    const none = {
      audience: 0,
      runs: 0,
      requested: 0,
      skipped: { total: 0, reasons: {} },
      created: 0,
      delivered: 0,
      withdrawn: 0,
      expired: 0,
      users_blocked: 0,
      users_discarded: 0,
    };
    expect([reportStatus, report.control]).toEqual([
      200,
      { ...none, responses: zeros, converted: 0, conversion_rate: null, attribution_open: 0, matured: 0, matured_converted: 0 },
    ]);
    expect(report.variants).toEqual([
      {
        variant: 1,
        action_id: actionId,
        ...{ ...none, audience: 1, runs: 1, requested: 1, created: 1, delivered: 1 },
        responses: { ...zeros, open: 1 },
        converted: 1,
        conversion_rate: 1,
        attribution_open: 1,
        matured: 0,
        matured_converted: 0,
        uplift: null,
        readings: null,
        // Not an adaptive campaign.
        epoch_weighted: null,
      },
    ]);
  });
});
