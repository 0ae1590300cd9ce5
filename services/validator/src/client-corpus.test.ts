import { rawHeaders } from '@evp/contract';
import { DEFAULT_PRIVACY_TABLE, type BusMessage } from '@evp/core';
import type { AcceptedEvent } from '@evp/schemas';
import { clientCorpus, ruleNames as rules, type CorpusVerdict as Verdict } from '@evp/testkit';
// Test-only: the gateway's own slicing, so the raw messages are exactly the gateway's.
import { sliceEnvelopes } from '../../gateway/src/envelopes';
import { processRawMessage, type MessageOutcome } from './process-raw';
import { applyCatalogPrivacy, applyEventPrivacy } from './privacy';

/** The validator's privacy step under the default policy (no app settings): the corpus must pass it with no new warning. */
function withDefaultPrivacy(o: MessageOutcome<AcceptedEvent>): MessageOutcome<AcceptedEvent> {
  for (const e of o.events) applyEventPrivacy(e, DEFAULT_PRIVACY_TABLE.default);
  for (const c of o.catalog) applyCatalogPrivacy(c, DEFAULT_PRIVACY_TABLE.default);
  return o;
}

/**
 * The real clients' corpus (schemas/corpus/clients: one file per client version, every payload as
 * that client builds it, with the client source it mirrors) through the validator: each ingest
 * payload becomes the raw messages the gateway would write and must end in exactly the verdicts its
 * `expect` names. dev/src/client-corpus.test.ts sends the same payloads over HTTP end to end.
 */
/**
 * The payload kind the gateway gives an ingest path (services/gateway/src/app.ts), or undefined for a
 * path that is not an upload (action fetches). Kept in step with the gateway by the HTTP corpus test.
 */
function payloadKindOf(path: string): string | undefined {
  if (path === '/v1/ingest/log' || path === '/v1/ingest/events' || path === '/data/ingest/log') return 'log';
  if (path === '/v1/ingest/dimensions') return 'dimensions';
  if (path === '/v1/ingest/sdk/crash') return 'crash';
  const catalog = /^\/(?:v1|data)\/ingest\/catalog\/([^/?]+)$/.exec(path);
  if (catalog) return `catalog:${decodeURIComponent(catalog[1] as string)}`;
  return undefined;
}

/**
 * The raw messages the gateway writes for a body: for logs one per envelope (per user of a flat
 * body), else the body.
 */
function rawMessages(kind: string, body: unknown, client: Record<string, string> = {}): BusMessage[] {
  const text = JSON.stringify(body);
  const bodies = kind === 'log' ? sliceEnvelopes(body, text).map((s) => s.json) : [text];
  return bodies.map((b, i) => ({
    topic: 'ingest.raw',
    partition: 0,
    offset: String(i),
    key: 'app-1:u',
    timestamp: 1_741_946_400_000,
    value: Buffer.from(b),
    headers: {
      [rawHeaders.appId]: 'app-1',
      [rawHeaders.requestId]: 'req-corpus',
      // 2026-01-01: after every time in the corpora (their logs are dated in 2025), so none is future_time.
      [rawHeaders.receivedAt]: '1767225600000',
      [rawHeaders.keyId]: 'k-sdk',
      [rawHeaders.payloadKind]: kind,
      [rawHeaders.envelopeIndex]: String(i),
      [rawHeaders.envelopeCount]: String(bodies.length),
      ...client,
    },
  }));
}

/** The client headers the gateway forwards with a catalog upload (services/gateway/src/ingest.ts, requestClient). */
function clientHeaders(kind: string, path: string, stackHeaders: Record<string, string>): Record<string, string> {
  if (kind === 'log' || kind === 'crash') return {};
  const ua = stackHeaders['User-Agent'];
  return { [rawHeaders.routeForm]: path.startsWith('/data/') ? 'import' : 'sdk', ...(ua === undefined ? {} : { [rawHeaders.userAgent]: ua }) };
}

/** One message's verdicts, in the receipt's order: by event index, a whole-envelope rejection first. */
function verdictsOf(o: MessageOutcome<AcceptedEvent>): Verdict[] {
  const items: { index: number; verdict: Verdict }[] = [
    ...o.events.map(({ event: e, event_index }) => ({
      index: event_index,
      verdict: { status: 'accepted' as const, name: e.name, warnings: rules(e.warnings) },
    })),
    ...o.catalog
      .filter((c) => c.index !== null)
      .map((c) => ({ index: c.index as number, verdict: { status: 'accepted' as const, name: c.record.kind, warnings: rules(c.warnings) } })),
    ...o.rejections.map((r) => ({ index: r.event_index ?? -1, verdict: { status: 'rejected' as const, name: r.event_name, reasons: rules(r.reasons) } })),
  ];
  return items.sort((a, b) => a.index - b.index).map((i) => i.verdict);
}

const cases = clientCorpus()
  .filter(({ p }) => payloadKindOf(p.request.path) !== undefined && p.expect?.verdicts !== undefined)
  .map(({ name, p, stackHeaders }) => [name, p, stackHeaders] as const);

describe('real clients’ corpus through the validator (its privacy step under the default policy included)', () => {
  it('has payloads with expectations', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('%s', (_name, p, stackHeaders) => {
    const kind = payloadKindOf(p.request.path) as string;
    const verdicts = rawMessages(kind, p.request.body, clientHeaders(kind, p.request.path, stackHeaders)).flatMap((m) =>
      verdictsOf(withDefaultPrivacy(processRawMessage(m, { maxEventChars: 64 * 1024 }))),
    );
    expect(verdicts).toEqual(p.expect?.verdicts);
  });
});
