import { createLogger } from '@evp/core';
import { clientCorpus, ruleNames as rules, uniqueName, waitFor, type CorpusVerdict as Verdict } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

/**
 * Every payload of the real clients' corpus (schemas/corpus/clients: one file per client version,
 * each payload as that client builds it, citing its source) end to end on `npm start`'s composition:
 * sent over HTTP exactly as the client sends it, answered with the status (and, where the client
 * needs it, the empty body) its `expect` names, and — for uploads — validated into exactly the
 * expected verdicts, read back from the receipts through GET /v1/ingest/requests/{id}.
 * services/validator/src/client-corpus.test.ts runs the same uploads through the validator alone.
 */
interface ReceiptEvent {
  status: 'accepted' | 'rejected';
  name: string | null;
  warnings?: { rule: string }[];
  warnings_total?: number;
  reasons?: { rule: string }[];
  reasons_total?: number;
}

/** A receipt's event as the corpus writes a verdict (rule names only, sorted, unique). */
function verdictOf(e: ReceiptEvent): Verdict {
  return e.status === 'accepted'
    ? { status: 'accepted', name: e.name, warnings: rules(e.warnings) }
    : { status: 'rejected', name: e.name, reasons: rules(e.reasons) };
}

const corpus = clientCorpus();

describe('the real clients’ corpus end to end (HTTP → receipts)', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('corpus').replace(/-/g, '_') });
  const answers = new Map<string, { status: number; body: string; requestId: string }>();

  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('corpus', 'silent'), sinkFlushMs: 50 });
    // Everything is sent first, then every test reads its own answer and receipts: the pipeline
    // validates them all while the first tests wait.
    let n = 0;
    for (const { name, p, stackHeaders } of corpus) {
      const requestId = `corpus-${n++}`;
      const query = p.request.query ? `?${new URLSearchParams(p.request.query).toString()}` : '';
      // What the client's HTTP stack adds (URLSession's User-Agent): the identity of a catalog upload.
      const headers: Record<string, string> = {
        ...stackHeaders,
        ...p.request.headers,
        Authorization: `Bearer ${p.request.auth === 'api' ? API_KEY : SDK_KEY}`,
        'X-Request-Id': requestId,
      };
      // A fetch (GET) has no body, whatever the corpus notes beside it.
      const body = p.request.method === 'GET' || p.request.body === undefined ? undefined : JSON.stringify(p.request.body);
      if (body !== undefined) headers['Content-Type'] ??= 'application/json';
      const res = await fetch(`${pipeline.baseUrl}${p.request.path}${query}`, { method: p.request.method, headers, body });
      answers.set(name, { status: res.status, body: await res.text(), requestId });
    }
    // The other way: the older iOS line's chw upload sent by a client that declares itself as the
    // web library (no URLSession User-Agent) meets the spec: chw is no kind of it.
    const chw = corpus.find(({ name }) => name === 'ios-cf-0.5.3.json catalog-chw');
    if (chw === undefined) throw new Error('the corpus has no ios-cf-0.5.3.json catalog-chw');
    await fetch(`${pipeline.baseUrl}${chw.p.request.path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK_KEY}`, 'Content-Type': 'application/json', 'X-EVP-SDK': 'web/1.0.0', 'X-Request-Id': 'corpus-spec-chw' },
      body: JSON.stringify(chw.p.request.body),
    });
  }, 120_000);
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('a catalog quirk travels with its client: the same chw upload from the web library is rejected (unknown_catalog_kind)', async () => {
    const chw = corpus.find(({ name }) => name === 'ios-cf-0.5.3.json catalog-chw')!;
    const verdicts = await waitFor(
      async () => {
        const res = await fetch(`${pipeline.baseUrl}/v1/ingest/requests/corpus-spec-chw`, { headers: { Authorization: `Bearer ${API_KEY}` } });
        const body = (await res.json()) as { status: string; events: ReceiptEvent[] };
        return body.status === 'complete' ? body.events : undefined;
      },
      { timeoutMs: 30_000, what: 'the verdicts of the chw upload from web/1.0.0' },
    );
    const records = (chw.p.request.body as unknown[]).length;
    expect(verdicts.map(verdictOf)).toEqual(
      Array.from({ length: records }, () => expect.objectContaining({ status: 'rejected', reasons: expect.arrayContaining(['unknown_catalog_kind']) })),
    );
    // …while from causalfoundry/ios-sdk (URLSession's User-Agent) it is accepted with catalog_kind_alias (the corpus case).
    expect(chw.p.expect?.verdicts?.every((v) => v.status === 'accepted' && v.warnings?.includes('catalog_kind_alias'))).toBe(true);
  });

  it('has an expectation for every payload', () => {
    expect(corpus.filter(({ p }) => p.expect === undefined).map(({ name }) => name)).toEqual([]);
  });

  it.each(corpus.filter(({ p }) => p.expect !== undefined).map(({ name, p }) => [name, p] as const))('%s', async (name, p) => {
    const answer = answers.get(name) as { status: number; body: string; requestId: string };
    expect(answer.status).toBe(p.expect?.status);
    if (p.expect?.body === 'empty') expect(answer.body).toBe('');
    const expected = p.expect?.verdicts;
    if (expected === undefined) return;
    const verdicts = await waitFor(
      async () => {
        const res = await fetch(`${pipeline.baseUrl}/v1/ingest/requests/${answer.requestId}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
        const body = (await res.json()) as { status: string; events: ReceiptEvent[] };
        return body.status === 'complete' ? body.events : undefined;
      },
      { timeoutMs: 30_000, what: `the verdicts of ${name}` },
    );
    expect(verdicts.map(verdictOf)).toEqual(expected);
  });
});
