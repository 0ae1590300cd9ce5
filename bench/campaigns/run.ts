/**
 * Segment entry → campaign action available to a pull (issue 14), beside a bare `POST /v1/actions`
 * of as many actions at the same rate, in the same run. The pipeline bench's harness (gateway,
 * validator, action store, and the segmenter on chdb with the campaign worker, each in its own
 * process on a Kafka broker of its own). Membership records are produced straight onto
 * `segments.membership`, encoded as the segment engine encodes them (Avro through the registry,
 * key, headers: segments/change-log.ts), so what is measured starts at the entry, not at an event.
 *
 *   npm run bench:campaigns -- [--rate 1000] [--seconds 30] [--sample 100]
 *
 * Per user (every user enters once and should get exactly one action):
 *   campaign: `created` entry's `at` on actions.log − Kafka timestamp of its `entered` record
 *   baseline: `created` entry's `at` − the instant its `POST /v1/actions` was sent
 * and, for every `--sample`-th user of each phase, the first SDK pull (polled every 50 ms) that
 * returns the action − the same start, which checks that `created` is when the action is pullable.
 */
import { createLogger, type BusProducer } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { blockSubject, membershipChangeId, membershipChangeSchema, membershipHeaders, type ActionLogEntry } from '@evp/schemas';
import { KEYS, type Harness } from '../../dev/src/faults/harness';
import { bounded, killAllChildren, runHarnessScript } from '../../dev/src/faults/processes';
import { benchHarness } from '../pipeline/bench-harness';
import { median, quantile } from '../segments/timing';
import { textOption } from '../options';

const RATE = Number(textOption('rate', '1000'));
const SECONDS = Number(textOption('seconds', '30'));
const SAMPLE = Number(textOption('sample', '100'));
const ENTRIES = Math.round(RATE * SECONDS);
const WARM = 50;

const ACTION = { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' } as const;
const PULL_BODY = { ...ACTION };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call<T>(url: string, key: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const stats = (xs: number[]) => ({
  n: xs.length,
  p50: xs.length > 0 ? median(xs) : NaN,
  p95: xs.length > 0 ? quantile(xs, 0.95) : NaN,
  p99: xs.length > 0 ? quantile(xs, 0.99) : NaN,
  max: xs.length > 0 ? Math.max(...xs) : NaN,
});

/** Polls the SDK pull of one user every 50 ms until it returns an action; resolves the instant it did (NaN after 120 s). */
async function firstPull(h: Harness, user: string): Promise<number> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const r = await call<{ data: unknown[] }>(`${h.actionsUrl}/v1/action/sdk/pull`, KEYS.sdk, 'POST', { ...PULL_BODY, user_id: user });
    if (r.data.length > 0) return Date.now();
    await sleep(50);
  }
  return NaN;
}

/** The `created` entries of actions.log since `from` for users with `prefix`: user → at[] (and source). */
async function createdEntries(h: Harness, brokers: string[], from: number, prefix: string): Promise<Map<string, { at: number[]; source: string }>> {
  const bus = createKafkaBus({ brokers, clientId: 'bench-campaigns-log', logger: createLogger('bench', 'warn') });
  const registry = createConfluentRegistry({ url: h.registryUrl, clientId: 'bench-campaigns' });
  const out = new Map<string, { at: number[]; source: string }>();
  const entries = new Set<string>();
  try {
    await bus.scan('actions.log', from, async (m) => {
      if (!m.key?.startsWith(`${KEYS.appId}:${prefix}`)) return;
      const e = (await registry.decode(m.value)) as ActionLogEntry;
      if (e.kind !== 'created' || !e.user_id.startsWith(prefix)) return;
      // The relay sends at least once: copies of one entry (same entry_id) count once.
      if (entries.has(e.entry_id)) return;
      entries.add(e.entry_id);
      const seen = out.get(e.user_id);
      if (seen) seen.at.push(Number(e.at));
      else out.set(e.user_id, { at: [Number(e.at)], source: e.source });
    });
  } finally {
    await bus.close();
  }
  return out;
}

/** Kafka timestamps of the `entered` records of `segmentId` since `from`, by user. */
async function entryTimestamps(brokers: string[], segmentId: string, from: number): Promise<Map<string, number>> {
  const bus = createKafkaBus({ brokers, clientId: 'bench-campaigns-entries', logger: createLogger('bench', 'warn') });
  const out = new Map<string, number>();
  try {
    await bus.scan('segments.membership', from, (m) => {
      if (m.headers[membershipHeaders.segmentId] !== segmentId) return;
      const user = (m.headers[membershipHeaders.changeId] ?? '').split(':')[1];
      if (user && !out.has(user)) out.set(user, m.timestamp);
    });
  } finally {
    await bus.close();
  }
  return out;
}

/**
 * Where the time goes, by user since `from`: the Kafka timestamp of the campaign's trigger item
 * naming the user (campaigns.triggers: the entry consumer's work done) and of the actions.requested
 * message holding the user's action (the worker's: loads, render, outcome insert done).
 */
async function stages(brokers: string[], campaignId: string, from: number): Promise<{ item: Map<string, number>; requested: Map<string, number> }> {
  const bus = createKafkaBus({ brokers, clientId: 'bench-campaigns-stages', logger: createLogger('bench', 'warn') });
  const item = new Map<string, number>();
  const requested = new Map<string, number>();
  try {
    await bus.scan('campaigns.triggers', from, (m) => {
      const v = JSON.parse(m.value.toString('utf8')) as { campaign_id: string; users?: { user_id: string }[] };
      if (v.campaign_id === campaignId) for (const u of v.users ?? []) if (!item.has(u.user_id)) item.set(u.user_id, m.timestamp);
    });
    await bus.scan('actions.requested', from, (m) => {
      const v = JSON.parse(m.value.toString('utf8')) as { source?: string; actions: { user_id: string }[] };
      if (v.source === `campaign:${campaignId}`) for (const a of v.actions) if (!requested.has(a.user_id)) requested.set(a.user_id, m.timestamp);
    });
  } finally {
    await bus.close();
  }
  return { item, requested };
}

/** Waits until every user of `users` has a `created` entry (or `ms` pass); returns the entries. */
async function awaitCreated(h: Harness, brokers: string[], from: number, prefix: string, users: number, ms: number) {
  const deadline = Date.now() + ms;
  let last = -1;
  let stalled = Date.now();
  while (Date.now() < deadline) {
    const got = await createdEntries(h, brokers, from, prefix);
    if (got.size >= users) break;
    if (got.size !== last) [last, stalled] = [got.size, Date.now()];
    // Nothing new for 30 s: what is missing is not coming.
    if (Date.now() - stalled > 30_000) break;
    await sleep(1_000);
  }
  // A little longer, so a second action for some user (a duplicate that should not exist) would show.
  await sleep(2_000);
  return createdEntries(h, brokers, from, prefix);
}

/** Produces `users` as `entered` records of `segmentId` at `rate`/s, encoded as the segment engine does. Returns when all are acked. */
async function produceEntries(
  producer: BusProducer,
  encode: (v: unknown) => Promise<Buffer>,
  segmentId: string,
  users: string[],
  rate: number,
  onSent: (i: number) => void,
) {
  const start = Date.now();
  let sent = 0;
  while (sent < users.length) {
    const due = Math.min(users.length, Math.floor(((Date.now() - start) / 1000) * rate) + 1);
    if (due > sent) {
      const batch = users.slice(sent, due);
      const at = Date.now();
      const messages = await Promise.all(
        batch.map(async (user_id) => {
          const c = { app_id: KEYS.appId, segment_id: segmentId, user_id, change: 'entered' as const, at, version: 1, seq: 1 };
          return {
            key: `${c.app_id}:${c.user_id}`,
            value: await encode(c),
            headers: { [membershipHeaders.changeId]: membershipChangeId(c), [membershipHeaders.appId]: c.app_id, [membershipHeaders.segmentId]: c.segment_id },
          };
        }),
      );
      await producer.send('segments.membership', messages);
      for (let i = sent; i < due; i++) onSent(i);
      sent = due;
    }
    await sleep(5);
  }
}

/** `POST /v1/actions` of one action per user at `rate`/s (open loop, at most 512 in flight); per request its send instant and latency. */
async function postActions(
  h: Harness,
  users: string[],
  rate: number,
  onSent: (i: number, sentAt: number) => void,
): Promise<{ sentAt: number[]; latency: number[]; failed: number }> {
  const sentAt: number[] = new Array(users.length);
  const latency: number[] = [];
  let failed = 0;
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const start = Date.now();
  const expired_at = new Date(Date.now() + 86_400_000).toISOString();
  for (let i = 0; i < users.length; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    while (inFlight >= 512) await sleep(1);
    inFlight++;
    const t = Date.now();
    sentAt[i] = t;
    onSent(i, t);
    const body = [{ ...ACTION, user_id: users[i], content: { title: `Hi User ${i}`, body: 'Your refill is ready' }, expired_at, inv_id: 1, action_id: 1 }];
    pending.push(
      call(`${h.actionsUrl}/v1/actions`, KEYS.api, 'POST', body)
        .then(() => void latency.push(Date.now() - t))
        .catch(() => void failed++)
        .finally(() => void inFlight--),
    );
  }
  await Promise.all(pending);
  return { sentAt, latency, failed };
}

async function main() {
  const { harness: h, brokers } = benchHarness('bench-campaigns');
  const runId = Date.now().toString(36);
  const bus = createKafkaBus({ brokers, clientId: 'bench-campaigns', logger: createLogger('bench', 'warn') });
  try {
    await bounded(h.start(), 5 * 60_000, 'the stack and services to start');
    const registry = createConfluentRegistry({ url: h.registryUrl, clientId: 'bench-campaigns' });
    const schemaId = await registry.register(blockSubject('segments.membership'), membershipChangeSchema);
    const encode = (v: unknown) => registry.encode(schemaId, v);
    const producer = await bus.producer();
    const load = (await import('node:os')).loadavg().map((x) => x.toFixed(2));
    console.log(`load average at start: ${load.join(' ')}`);

    // Users: warm-up rounds and the measured phase (campaign), each with a user catalog record; the
    // baseline's users get their action straight from POST /v1/actions.
    const campaignUsers = Array.from({ length: ENTRIES }, (_, i) => `c-${runId}-${i}`);
    const baselineUsers = Array.from({ length: ENTRIES }, (_, i) => `b-${runId}-${i}`);
    const warmUsers = (round: number) => Array.from({ length: WARM }, (_, i) => `w${round}-${runId}-${i}`);
    const seeded = [...Array.from({ length: 10 }, (_, r) => warmUsers(r)).flat(), ...campaignUsers];
    const nameOf = (u: string) => `User ${u.split('-').pop()}`;
    for (let i = 0; i < seeded.length; i += 1000) {
      const records = seeded.slice(i, i + 1000).map((id) => ({ id, name: nameOf(id), timezone: 'UTC' }));
      await call(`${h.gatewayUrl}/v1/ingest/catalog/user`, KEYS.sdk, 'POST', records);
    }
    for (const deadline = Date.now() + 300_000; ;) {
      const [row] = await h.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM catalog_user FINAL WHERE app_id = {app:String} AND id IN {ids:Array(String)}`,
        {
          app: KEYS.appId,
          ids: seeded,
        },
      );
      if (Number(row?.n) === seeded.length) break;
      if (Date.now() > deadline) throw new Error(`user catalog: ${row?.n}/${seeded.length} records stored`);
      await sleep(1_000);
    }
    console.log(`${seeded.length} user catalog records stored`);

    const segment = await call<{ id: string }>(`${h.segmenterUrl}/v1/segments`, KEYS.api, 'POST', {
      name: 'bench: entered by hand',
      definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: `/bench-${runId}` }] },
    });
    const campaign = await call<{ id: string }>(`${h.segmenterUrl}/v1/campaigns`, KEYS.api, 'POST', {
      name: 'bench: welcome',
      trigger: { segment_entry: segment.id },
      action: { ...ACTION, content: { title: 'Hi {{ user.name }}', body: 'Your refill is ready' }, expires_after: 'P1D' },
    });
    await call(`${h.segmenterUrl}/v1/campaigns/${campaign.id}/resume`, KEYS.api, 'POST');

    // Warm-up: rounds of entries until every one of a round gets its action (the worker learns of
    // the campaign on its refresh; consumer groups join; chdb and Redis warm).
    for (let round = 0; ; round++) {
      if (round === 10) throw new Error('the campaign worker never acted on the warm-up entries');
      const from = Date.now();
      await produceEntries(producer, encode, segment.id, warmUsers(round), 25, () => undefined);
      const got = await awaitCreated(h, brokers, from - 1_000, `w${round}-`, WARM, 20_000);
      console.log(`warm-up round ${round}: ${got.size}/${WARM} actions created`);
      if (got.size === WARM) break;
    }

    // Baseline: POST /v1/actions, one action per request, at the same rate.
    console.log(`--- baseline: ${ENTRIES} POST /v1/actions at ${RATE}/s; load ${(await import('node:os')).loadavg()[0]?.toFixed(2)}`);
    const bFrom = Date.now();
    const bPulls: Promise<number>[] = [];
    const bPullStart: number[] = [];
    const posted = await postActions(h, baselineUsers, RATE, (i, t) => {
      if (i % SAMPLE === 0) {
        bPullStart.push(t);
        bPulls.push(firstPull(h, baselineUsers[i] as string));
      }
    });
    const bLoad = (await import('node:os')).loadavg()[0]?.toFixed(2);
    const bCreated = await awaitCreated(h, brokers, bFrom - 1_000, 'b-', ENTRIES, 120_000);
    const bPulled = await Promise.all(bPulls);

    // Campaign: entries at the same rate.
    console.log(`--- campaign: ${ENTRIES} entries at ${RATE}/s; load ${(await import('node:os')).loadavg()[0]?.toFixed(2)}`);
    const cFrom = Date.now();
    const cPulls: Promise<number>[] = [];
    const cSampled: string[] = [];
    await produceEntries(producer, encode, segment.id, campaignUsers, RATE, (i) => {
      if (i % SAMPLE === 0) {
        cSampled.push(campaignUsers[i] as string);
        cPulls.push(firstPull(h, campaignUsers[i] as string));
      }
    });
    const produceSeconds = (Date.now() - cFrom) / 1000;
    const cLoad = (await import('node:os')).loadavg()[0]?.toFixed(2);
    const cCreated = await awaitCreated(h, brokers, cFrom - 1_000, 'c-', ENTRIES, 300_000);
    const cPulled = await Promise.all(cPulls);
    const entered = await entryTimestamps(brokers, segment.id, cFrom - 1_000);
    const [outcomes] = await h.query<{ requested: string; other: string }>(
      `SELECT toString(countIf(outcome = 'requested')) AS requested, toString(countIf(outcome != 'requested')) AS other FROM campaign_outcomes FINAL WHERE app_id = {app:String} AND campaign_id = {c:String} AND startsWith(user_id, 'c-')`,
      { app: KEYS.appId, c: campaign.id },
    );

    const split = await stages(brokers, campaign.id, cFrom - 1_000);
    const toItem: number[] = [];
    const toRequested: number[] = [];
    const toCreated: number[] = [];
    for (const u of campaignUsers) {
      const [e, i, r, c] = [entered.get(u), split.item.get(u), split.requested.get(u), cCreated.get(u)?.at[0]];
      if (e === undefined || i === undefined || r === undefined || c === undefined) continue;
      toItem.push(i - e);
      toRequested.push(r - i);
      toCreated.push(c - r);
    }

    // Per user.
    const cLatency: number[] = [];
    let cDup = 0;
    for (const u of campaignUsers) {
      const e = entered.get(u);
      const c = cCreated.get(u);
      if (e === undefined || c === undefined) continue;
      if (c.at.length > 1) cDup++;
      cLatency.push(Math.min(...c.at) - e);
    }
    const cPull = cSampled.map((u, i) => (cPulled[i] as number) - (entered.get(u) ?? NaN)).filter(Number.isFinite);
    const cPullVsCreated = cSampled.map((u, i) => (cPulled[i] as number) - Math.min(...(cCreated.get(u)?.at ?? [NaN]))).filter(Number.isFinite);
    const bLatency: number[] = [];
    let bDup = 0;
    baselineUsers.forEach((u, i) => {
      const c = bCreated.get(u);
      if (c === undefined) return;
      if (c.at.length > 1) bDup++;
      bLatency.push(Math.min(...c.at) - (posted.sentAt[i] as number));
    });
    const bPull = bPulled.map((t, i) => t - (bPullStart[i] as number)).filter(Number.isFinite);

    const cs = stats(cLatency);
    const bs = stats(bLatency);
    const counts = {
      entries: ENTRIES,
      entered_records_read_back: [...campaignUsers].filter((u) => entered.has(u)).length,
      campaign_outcomes: outcomes,
      campaign_actions_created: cCreated.size,
      campaign_users_with_two_actions: cDup,
      campaign_lost: ENTRIES - cCreated.size,
      baseline_posted_ok: posted.latency.length,
      baseline_failed: posted.failed,
      baseline_created: bCreated.size,
      baseline_users_with_two_actions: bDup,
      produce_seconds: produceSeconds,
      sources: [...new Set([...cCreated.values()].map((c) => c.source))],
    };
    console.log(JSON.stringify(counts));
    const row = (label: string, s: ReturnType<typeof stats>) => `| ${label} | ${s.n} | ${s.p50} | ${s.p95} | ${s.p99} | ${s.max} |`;
    console.log(
      `\n${ENTRIES} segment entries at ${RATE}/s (${SECONDS} s) vs ${ENTRIES} POST /v1/actions at ${RATE}/s; load average (1 min) at the end of each phase: baseline ${bLoad}, campaign ${cLoad}\n`,
    );
    console.log('| ms | samples | p50 | p95 | p99 | max |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    console.log(row('**campaign: `entered` record → action `created`** (every user)', cs));
    console.log(row('… `entered` record → its trigger item on campaigns.triggers (the entry consumer)', stats(toItem)));
    console.log(row('… trigger item → its actions.requested message (the worker: reads, render, outcome insert)', stats(toRequested)));
    console.log(row('… actions.requested message → `created` (the action store consumer)', stats(toCreated)));
    console.log(row('campaign: `entered` record → first SDK pull returning it (sampled users)', stats(cPull)));
    console.log(row('… of which `created` → that pull (the polling interval is 50 ms)', stats(cPullVsCreated)));
    console.log(row('**baseline: `POST /v1/actions` sent → action `created`** (every action)', bs));
    console.log(row('baseline: `POST /v1/actions` sent → answered', stats(posted.latency)));
    console.log(row('baseline: sent → first SDK pull returning it (sampled users)', stats(bPull)));
    console.log(`\nratio campaign / baseline (entry → created vs sent → created): p50 ${(cs.p50 / bs.p50).toFixed(1)}×, p95 ${(cs.p95 / bs.p95).toFixed(1)}×`);
    console.log(`goal p95 ≤ 2,000 ms: ${cs.p95 <= 2000 ? 'met' : 'NOT met'}`);
    if (cCreated.size !== ENTRIES || cDup > 0) throw new Error(`${ENTRIES - cCreated.size} entries without an action, ${cDup} users with two`);
  } finally {
    await bus.close().catch(() => undefined);
    await bounded(h.stop(), 3 * 60_000, 'the harness to stop').catch((err) => console.error(err));
    killAllChildren();
  }
}

runHarnessScript(main);
