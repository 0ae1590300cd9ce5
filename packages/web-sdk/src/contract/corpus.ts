import { catalogDefs, eventDefs } from '@evp/schemas';
import { SDK_VERSION } from '../core/client';
import { envelopes, fakeDeps, testClient } from '../core/testing/fakes';
import { sampleObject, sampleProps } from './samples';

export const CORPUS_PATH = `schemas/corpus/clients/web-${SDK_VERSION}.json`;
export const CORPUS_COMMAND = 'npx tsx packages/web-sdk/src/build/corpus.ts';

/** The spec's events, as the web types have them (schemas/src/generate/web-sdk-types.ts: no `origin`, not `exception`). */
export const webEventDefs = () => eventDefs.filter((d) => d.origin === undefined && d.event !== 'exception');

interface Payload {
  id: string;
  describes: string;
  source: string[];
  request: { method: 'POST'; path: string; auth: 'sdk'; headers: Record<string, string>; body: unknown };
  expect: { status: 200; verdicts: { status: 'accepted'; name: string; warnings: string[] }[]; note?: string };
}

/** 2025-03-14 09:00:00.000 UTC (the corpus uses dates in 2025; the validator's corpus test receives at 10:00). */
const START = Date.UTC(2025, 2, 14, 9, 0, 0);
const BASE = 'https://api.example.com/v1';

/**
 * Every upload the library builds — each event of spec section 6, identify in each shape, an
 * app-defined event, each catalog kind — captured from the library itself (the Client with a
 * recording transport), as schemas/corpus/clients expects them. The validator's and the HTTP
 * corpus tests then hold the platform to accepting each with zero warnings.
 */
export async function webCorpus() {
  const payloads: Payload[] = [];
  const f = fakeDeps(undefined, undefined, START);
  const t = testClient({ apiUrl: BASE, appId: 'shop.example.com', appVersion: '2.1.0 (21)' }, f);
  t.client.setUser('user-8842');
  const capture = async (id: string, describes: string, source: string, act: () => Promise<void>) => {
    const before = t.sent.length;
    await act();
    await t.client.flush();
    await t.advance(1_000);
    for (const [i, s] of t.sent.slice(before).entries()) {
      const path = s.url.slice(BASE.length - '/v1'.length);
      const body = JSON.parse(s.body) as unknown;
      const verdicts = path.startsWith('/v1/ingest/catalog/')
        ? (body as unknown[]).map(() => ({ status: 'accepted' as const, name: path.split('/').pop()!, warnings: [] }))
        : envelopes(s.body).flatMap((e) => e.data.map((d) => ({ status: 'accepted' as const, name: d.name as string, warnings: [] })));
      payloads.push({
        id: i === 0 ? id : `${id}-${i + 1}`,
        describes,
        source: ['packages/web-sdk/src/core/client.ts', source],
        request: { method: 'POST', path, auth: 'sdk', headers: { 'Content-Type': 'application/json' }, body },
        expect: { status: 200, verdicts },
      });
    }
  };
  for (const def of webEventDefs()) {
    await capture(
      `${def.event.replace(/_/g, '-')}`,
      `track('${def.event}', props) with every property the web types require`,
      'packages/web-sdk/src/api.ts (track)',
      () => t.client.record(def.event, sampleProps(def)),
    );
  }
  await capture(
    'identify-register-user-props',
    "identify('register', id, userProps): the identify event, then the user properties as a user catalog record",
    'packages/web-sdk/src/core/client.ts (identify)',
    () => t.client.identify('register', 'user-8842', { name: 'Amina Yusuf', country: 'Kenya', city: 'Nairobi', timezone: 'Africa/Nairobi' }),
  );
  await capture(
    'identify-blocked',
    "identify('blocked', id, undefined, { blocked }): the blocked object",
    'packages/web-sdk/src/core/client.ts (identify)',
    () => t.client.identify('blocked', 'user-8842', undefined, { blocked: { reason: 'fraud', remarks: 'chargeback' } }),
  );
  await capture(
    'identify-logout',
    "identify('logout', id): logged under the user; the library then goes back to the anonymous device id",
    'packages/web-sdk/src/core/client.ts (identify)',
    () => t.client.identify('logout', 'user-8842'),
  );
  t.client.setUser('user-8842');
  await capture(
    'custom-event',
    "trackCustom('wishlist_shared', { items: 3 }): an app-defined event; its values travel in meta",
    'packages/web-sdk/src/api.ts (trackCustom)',
    () => t.client.record('custom', { name: 'wishlist_shared' }, { items: 3 }),
  );
  for (const def of catalogDefs.filter((d) => d.deprecated !== true)) {
    await capture(
      `catalog-${def.kind.replace(/_/g, '-')}`,
      `catalog('${def.kind}', record) with every field the web types require`,
      'packages/web-sdk/src/core/client.ts (catalog)',
      () => t.client.catalog(def.kind, sampleObject(def)),
    );
  }
  return {
    client: '@evp/web-sdk (this repository)',
    line: 'web',
    version: SDK_VERSION,
    commit: 'generated from packages/web-sdk by ' + CORPUS_COMMAND,
    base_url: `${BASE}/`,
    auth: 'Authorization: Bearer <SDK key> on fetch (packages/web-sdk/src/browser/transport.ts); a sendBeacon upload carries the key as the sdk_key query parameter with a text/plain body',
    payloads,
    response_handling:
      '2xx deletes the frozen batch; 413 splits it (a single event is dropped and counted); 401/403 stop uploads and warn; 408/429/5xx and network errors back off (Retry-After when given) and re-send the same bytes but for sent_at; any other 4xx drops the batch, counted and warned about (packages/web-sdk/src/core/uploader.ts)',
  };
}
