import { createLogger, topics } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { waitFor } from '@evp/testkit';
import { awaitAllStored } from './counts';
import { KEYS, type Harness } from './harness';
import { sendUpload, startLoad } from './load';
import { REPLICATED, ReplicaSet, type Replicated } from './replicas';
import { RATE, SETTLE_MS, call, every, hashSeed, pause, utc, verdict, type Scenario } from './scenario-kit';

/** How long a killed replica stays away before its restart begins, and the load between kills. */
const DEAD_MS = 10_000;
const BETWEEN_MS = 10_000;
/** After this long, nginx must have left the dead replica out: no request started later may fail. */
const ROUTED_AROUND_MS = 1_000;

type Kind = 'upload' | 'segment user' | 'create' | 'pull' | 'inspector page';

/**
 * Every request's kind and answer (0: no answer), stamped when the answer came, so a request in
 * flight when a replica died counts in that replica's window.
 */
class Answers {
  readonly all: { kind: Kind; at: number; status: number }[] = [];
  add(kind: Kind, status: number) {
    this.all.push({ kind, at: Date.now(), status });
  }
  /** Failed answers (5xx or none) that came in [from, to), as "3× 503 upload". */
  failed(from: number, to: number) {
    const n = new Map<string, number>();
    for (const a of this.all) {
      const what = `${a.status || 'no answer'} ${a.kind}`;
      if (a.at >= from && a.at < to && (a.status === 0 || a.status >= 500)) n.set(what, (n.get(what) ?? 0) + 1);
    }
    return [...n].map(([what, count]) => `${count}× ${what}`);
  }
}

/**
 * Issue 26 part 4: two replicas of each service behind the nginx edge (ReplicaSet), under the steady
 * upload load plus three streams through the edge — a new user every second whose one upload puts
 * them in a segment (and so into a campaign on entering it), ten one-off actions created every
 * second (re-sent until acknowledged; creates are idempotent), and pulls of them every 300 ms — and
 * GETs of the segmenter's inspector page every 200 ms. One replica of each service in turn is
 * killed -9, stays away 10 s, is restarted, and the load runs 10 s more. Then: every acknowledged
 * event stored once; every acknowledged segment user entered exactly once on segments.membership
 * and got exactly one campaign action; every one-off action delivered exactly once; and no answer
 * that came more than 1 s after a kill failed (nginx left the dead replica out).
 */
export const replicasScenario: Scenario = {
  id: 'i',
  title: 'two replicas of each service behind the nginx edge; kill -9 one replica of each in turn under load',
  short: false,
  // Eight services start, and each killed replica restarts, on two shared cores.
  deadlineMs: 25 * 60_000,
  async run(h, { tag }) {
    const set = new ReplicaSet(h);
    await set.start();
    try {
      return await underReplicaKills(h, set, tag, this.title);
    } finally {
      await set.stop();
    }
  },
};

async function underReplicaKills(h: Harness, set: ReplicaSet, tag: string, title: string) {
  const edge = set.edgeUrl;
  const answers = new Answers();
  const failures: string[] = [];
  const notes: string[] = [];

  const segment = await call(edge, KEYS.api, 'POST', '/v1/segments', {
    name: `${tag}: viewed the scenario's page`,
    definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: `/${tag}/seg` }], count: { gte: 1 }, within: 'PT1H' },
  });
  if (segment.status !== 201) throw new Error(`segment create answered ${segment.status} ${JSON.stringify(segment.body)}`);
  const segmentId = segment.body.id as string;
  const campaign = await call(edge, KEYS.api, 'POST', '/v1/campaigns', {
    name: `${tag}: welcome`,
    trigger: { segment_entry: segmentId },
    action: { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off', content: { title: 'Welcome', body: tag }, expires_after: 'P1D' },
  });
  const resumed = await call(edge, KEYS.api, 'POST', `/v1/campaigns/${campaign.body.id}/resume`);
  if (campaign.status !== 201 || resumed.body.state !== 'active')
    throw new Error(`campaign answered ${campaign.status}, resume ${resumed.status} ${JSON.stringify(resumed.body)}`);
  const campaignId = campaign.body.id as string;
  // Both segmenter replicas re-read segments and campaigns every second (ReplicaSet): three refreshes.
  await pause(3_000);

  const since = Date.now() - 1_000;
  const load = startLoad({ gatewayUrl: edge, key: KEYS.sdk, tag, seed: hashSeed(tag), rate: RATE, onResult: (r) => answers.add('upload', r.status) });

  const segUsers = { acked: new Set<string>(), unacked: new Set<string>() };
  let segSeq = 0;
  const stopSeg = every(1_000, async () => {
    const user = `${tag}-s${segSeq++}`;
    const body = JSON.stringify({
      id: user,
      tz: '+00:00',
      internal: { s_id: `${user}_${Date.now()}_0`, a_id: 'faults', sdk: 'android/2.4.1', a_ver: '1.2.3 (45)', d_id: `dev-${user}`, os: 'android' },
      data: [{ time: utc(Date.now()), __ol: true, name: 'page', property: 'Seg', ctx: { path: `/${tag}/seg`, title: 'Seg', duration: 1, render_time: 10 } }],
    });
    const r = await sendUpload(edge, KEYS.sdk, body);
    answers.add('segment user', r.status);
    (r.status === 200 ? segUsers.acked : segUsers.unacked).add(user);
  });

  // One-off actions: created ten a second (each batch re-sent until acknowledged), pulled every 300 ms.
  const screen = tag;
  let created = 0;
  let batch = 0;
  const stopCreate = every(1_000, async () => {
    const first = batch++ * 10;
    const actions = Array.from({ length: 10 }, (_, i) => ({
      user_id: `${tag}-a${(first + i) % 10}`,
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      content: { title: `t${first + i}`, body: 'b' },
      attr: { screen },
      expired_at: '2999-01-01T00:00:00Z',
      inv_id: 1,
      action_id: first + i + 1,
    }));
    for (;;) {
      const r = await call(edge, KEYS.api, 'POST', '/v1/actions', { actions });
      answers.add('create', r.status);
      if (r.status === 200) {
        created += (r.body.counts?.created ?? 0) + (r.body.counts?.duplicate ?? 0);
        return;
      }
      await pause(200);
    }
  });
  const delivered: string[] = [];
  const pull = async () => {
    const r = await call(edge, KEYS.api, 'POST', '/v1/action/pull', {
      user_id: '*',
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      attr: { screen },
    });
    answers.add('pull', r.status);
    if (r.status !== 200) return undefined;
    for (const a of r.body.data as { user_id: string; payload: { internal: { action_id: number } } }[])
      delivered.push(`${a.user_id}/${a.payload.internal.action_id}`);
    return (r.body.data as unknown[]).length;
  };
  const stopPull = every(300, async () => void (await pull()));
  // A GET of the segmenter upstream that needs no ClickHouse (the inspector's page): the edge's
  // routing alone, apart from how fast the one chdb store answers the segmenters' queries.
  const stopRead = every(200, async () => {
    const res = await fetch(`${edge}/inspector`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
    await res?.arrayBuffer().catch(() => undefined);
    answers.add('inspector page', res?.status ?? 0);
  });

  await pause(15_000);
  const windows: { service: Replicated; id: string; killedAt: number; backAt: number }[] = [];
  for (const [k, service] of REPLICATED.entries()) {
    const i = k % 2;
    const id = ReplicaSet.id(service, i);
    const killedAt = Date.now();
    await h.kill9(id);
    await pause(DEAD_MS);
    await set.startReplica(service, i);
    windows.push({ service, id, killedAt, backAt: Date.now() });
    console.log(`  ${id}: killed, back after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    await pause(BETWEEN_MS);
  }
  const lastBack = windows[windows.length - 1]?.backAt ?? Date.now();
  const [tally] = await Promise.all([load.stop(), stopSeg(), stopCreate(), stopPull(), stopRead()]);

  for (const w of windows) {
    const early = answers.failed(w.killedAt, w.killedAt + ROUTED_AROUND_MS);
    const late = answers.failed(w.killedAt + ROUTED_AROUND_MS, w.backAt);
    notes.push(
      `${w.id} dead ${((w.backAt - w.killedAt) / 1000).toFixed(1)} s: failed in its first second ${early.join(', ') || 'none'}, after ${late.join(', ') || 'none'}`,
    );
    if (late.length) failures.push(`requests failed more than ${ROUTED_AROUND_MS} ms after ${w.id} was killed: ${late.join(', ')}`);
  }
  const outside = answers.failed(0, Number.MAX_SAFE_INTEGER).join(', ');
  notes.push(`failed answers over the whole run: ${outside || 'none'} of ${answers.all.length} requests`);

  // One-off actions: pull until every acknowledged one is delivered (or a minute passes).
  await waitFor(async () => (await pull()) === 0 && new Set(delivered).size >= created, {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: 'every one-off action delivered',
  }).catch(() => undefined);
  const distinct = new Set(delivered).size;
  notes.push(`one-off actions: ${created} created, ${distinct} delivered, ${delivered.length - distinct} delivered twice`);
  if (distinct !== created) failures.push(`${created - distinct} one-off actions never delivered`);
  if (delivered.length !== distinct) failures.push(`${delivered.length - distinct} one-off actions delivered twice`);

  const { counts } = await awaitAllStored((sql, p) => h.query(sql, p), tally, [tag], { timeoutMs: SETTLE_MS, since: lastBack });
  failures.push(...(await checkSegmentAndCampaign(h, edge, { segmentId, campaignId, since, users: segUsers }, notes)));
  return verdict('i', title, counts, undefined, failures, notes);
}

/**
 * Every acknowledged segment user entered exactly once on segments.membership (a user whose upload
 * was not acknowledged may have entered once, never twice), and every entrant has exactly one
 * campaign action, which its SDK pull returns.
 */
async function checkSegmentAndCampaign(
  h: Harness,
  edge: string,
  run: { segmentId: string; campaignId: string; since: number; users: { acked: Set<string>; unacked: Set<string> } },
  notes: string[],
): Promise<string[]> {
  const logger = createLogger('faults-i', 'silent');
  const bus = createKafkaBus({ brokers: h.brokers, clientId: 'faults-i', logger });
  const registry = createConfluentRegistry({ url: h.registryUrl, clientId: 'faults-i' });
  const entries = new Map<string, number>();
  const scan = async () => {
    entries.clear();
    const raw: Buffer[] = [];
    await bus.scan(topics.segmentsMembership, run.since, (m) => void raw.push(m.value));
    for (const value of raw) {
      const c = (await registry.decode(value)) as { segment_id: string; user_id: string; change: string };
      if (c.segment_id === run.segmentId && c.change === 'entered') entries.set(c.user_id, (entries.get(c.user_id) ?? 0) + 1);
    }
    return [...run.users.acked].every((u) => entries.has(u));
  };
  try {
    await waitFor(scan, { timeoutMs: SETTLE_MS, intervalMs: 2_000, what: 'every acknowledged segment user’s entry' }).catch(() => undefined);
  } finally {
    await bus.close();
  }
  const failures: string[] = [];
  const missing = [...run.users.acked].filter((u) => !entries.has(u));
  const twice = [...entries].filter(([, n]) => n > 1).map(([u]) => u);
  const strangers = [...entries.keys()].filter((u) => !run.users.acked.has(u) && !run.users.unacked.has(u));
  const unackedIn = [...run.users.unacked].filter((u) => entries.has(u)).length;
  notes.push(
    `segment: ${run.users.acked.size} acknowledged users, ${run.users.acked.size - missing.length} entered once; ${unackedIn} of ${run.users.unacked.size} unacknowledged entered`,
  );
  if (missing.length) failures.push(`${missing.length} acknowledged segment users never entered`);
  if (twice.length) failures.push(`${twice.length} users entered twice (${twice.slice(0, 3).join(', ')})`);
  if (strangers.length) failures.push(`${strangers.length} entries of users never uploaded`);

  // The campaign: one action per entrant, created once (a repeated trigger is the store's `duplicate`).
  const entrants = [...entries.keys()];
  const report = await waitFor(
    async () => {
      const r = (await call(edge, KEYS.api, 'GET', `/v1/campaigns/${run.campaignId}/report`)).body;
      return r.variants?.[0]?.created >= entrants.length ? r : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: 'the campaign’s actions for every entrant' },
  ).catch(() => undefined);
  let actions = 0;
  const wrong: string[] = [];
  for (const user of entrants) {
    const r = await call(edge, KEYS.sdk, 'POST', '/v1/action/sdk/pull', {
      user_id: user,
      type: 'message',
      render_method: 'in_app_message',
      delivery_mode: 'one-off',
    });
    const n = r.status === 200 ? (r.body.data as unknown[]).length : -1;
    actions += Math.max(0, n);
    if (n !== 1) wrong.push(`${user}: ${n < 0 ? `status ${r.status}` : n}`);
  }
  const v = report?.variants?.[0];
  notes.push(`campaign: ${entrants.length} entrants, report requested ${v?.requested ?? '?'} created ${v?.created ?? '?'}, ${actions} actions pulled`);
  if (wrong.length) failures.push(`${wrong.length} entrants without exactly one campaign action (${wrong.slice(0, 3).join(', ')})`);
  if (v?.requested !== entrants.length || v?.created !== entrants.length)
    failures.push(`campaign report requested ${v?.requested} created ${v?.created}, want ${entrants.length} each`);
  return failures;
}
