import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import type { CanonicalEvent } from '@evp/schemas';
import { useMigratedChdb } from '@evp/testkit';
import { checkout, ev, seed } from '../testing';
import { variantActionId } from './ids';
import { campaignReport } from './report';
import { compareValues, cuped, zFor } from './stats';
import type { ReportGoal } from './report-query';

// The campaign report on chdb with every migration: outcomes, action log entries and events seeded
// as rows, every number of the report checked against the hand count written beside the seeding.
const chdb = useMigratedChdb('campreport');
let analytics: Analytics;

const APP = 'rep';
const OTHER = 'other';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Every run of control and variant 1 happens at T0; the report is read at NOW. */
const T0 = Date.UTC(2026, 2, 1);
const NOW = Date.UTC(2026, 2, 10);
const GOAL: ReportGoal = { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], within: 'P3D' };
const A1 = variantActionId(APP, 'c1', 1);
const A2 = variantActionId(APP, 'c1', 2);

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, k) => from + k);
const pad = (i: number) => String(i).padStart(4, '0');
const v1 = (i: number) => `v1-${pad(i)}`;
const ctl = (i: number) => `c-${pad(i)}`;

interface Outcome {
  app?: string;
  campaign?: string;
  inv: number;
  user: string;
  variant: number;
  action: number;
  outcome: 'requested' | 'control' | 'skipped';
  reason?: string;
  at: number;
  /** When the worker assigned the user (default: the insert's instant). */
  written?: number;
}
const outcomeRow = (o: Outcome) => ({
  ...(o.written === undefined ? {} : { written_at: formatDateTime64(o.written) }),
  app_id: o.app ?? APP,
  campaign_id: o.campaign ?? 'c1',
  inv_id: o.inv,
  user_id: o.user,
  variant: o.variant,
  action_id: o.action,
  outcome: o.outcome,
  reason: o.reason ?? '',
  trigger: 'api',
  at: formatDateTime64(o.at),
});

type Kind = 'created' | 'delivered' | 'withdrawn' | 'expired' | 'capped';
const logRow = (inv: number, action: number, user: string, kind: Kind, opts: { app?: string; reason?: string; at?: number } = {}) => ({
  entry_id: `${opts.app ?? APP}-${inv}-${action}-${user}-${kind}`,
  app_id: opts.app ?? APP,
  user_id: user,
  inv_id: inv,
  action_id: action,
  kind,
  at: formatDateTime64(opts.at ?? T0 + HOUR),
  created_at: formatDateTime64(T0 + HOUR),
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  expired_at: null,
  tags: [],
  attr: {},
  source: kind === 'created' ? 'campaign:c1' : '',
  reason: opts.reason ?? '',
});

const response = (app: string, user: string, ref: string, r: string, time = T0 + 2 * HOUR, alias = false): CanonicalEvent =>
  ev(app, user, 'nudge_response', time, { ref, time: '2026-03-01T02:00:00Z', response: r }, alias ? { sent_name: 'action_response' } : {});

/** The test campaigns' split: half in control, the variants weighted alike. */
const split = (variants: number) => ({ holdout: 0.5, weights: Array.from({ length: variants }, () => 1) });
const report = (campaignId: string, variants: number, withGoal = true) =>
  campaignReport(analytics, { appId: APP, campaignId, split: split(variants), goal: withGoal ? GOAL : undefined, now: new Date(NOW) });

beforeAll(async () => {
  analytics = chdb.analytics;
  const outcomes: Outcome[] = [];
  const log: ReturnType<typeof logRow>[] = [];
  const events: CanonicalEvent[] = [];

  // Control: 1,000 users c-0000 … c-0999, one run each (inv 20000 + i) at T0, action_id 0.
  for (const i of range(0, 999)) outcomes.push({ inv: 20000 + i, user: ctl(i), variant: 0, action: 0, outcome: 'control', at: T0 });
  // Converted: c-0000 … c-0048 one day in; c-0000 also exactly at T0 (the window's start is in it);
  // c-0049 exactly at T0 + 3 days (its end is in it too): 50 users.
  for (const i of range(0, 48)) events.push(checkout(APP, ctl(i), T0 + DAY));
  events.push(checkout(APP, ctl(0), T0), checkout(APP, ctl(49), T0 + 3 * DAY));
  // Not converted: an unsuccessful checkout inside the window (c-0050 … c-0059), a successful one 1 ms
  // after the window (c-0060 … c-0069), 1 ms before the run (c-0070), another event (c-0071).
  for (const i of range(50, 59)) events.push(checkout(APP, ctl(i), T0 + DAY, false));
  for (const i of range(60, 69)) events.push(checkout(APP, ctl(i), T0 + 3 * DAY + 1));
  events.push(checkout(APP, ctl(70), T0 - 1));
  events.push(ev(APP, ctl(71), 'page', T0 + DAY, { path: '/home', title: 'Home', duration: 1, render_time: 1 }));
  // Before the campaign (CUPED's 14 days before each user's first run): c-0000 two checkouts
  // (10 and 2 days before T0), c-0001 … c-0009 one (2 days before), c-0070 the one 1 ms before.
  events.push(checkout(APP, ctl(0), T0 - 10 * DAY));
  for (const i of range(0, 9)) events.push(checkout(APP, ctl(i), T0 - 2 * DAY));

  // Variant 1: 1,000 users v1-0000 … v1-0999, one run each (inv 10000 + i) at T0, action A1.
  const ref1 = (i: number) => `${10000 + i}:${A1}`;
  for (const i of range(0, 989)) outcomes.push({ inv: 10000 + i, user: v1(i), variant: 1, action: A1, outcome: 'requested', at: T0 });
  // Skipped by the worker: 6 for a missing user name, 4 for a missing catalog record.
  for (const i of range(990, 995))
    outcomes.push({ inv: 10000 + i, user: v1(i), variant: 1, action: A1, outcome: 'skipped', reason: 'template_variable_missing: user.name', at: T0 });
  for (const i of range(996, 999))
    outcomes.push({ inv: 10000 + i, user: v1(i), variant: 1, action: A1, outcome: 'skipped', reason: 'template_variable_missing: catalog.drug.D-9', at: T0 });
  // The action log of the 990 requested: created 0 … 979 (980); capped 980 … 982 by the campaign's
  // cap (3) and 983 … 984 by the app's (2); 985 … 989 nothing yet (5). v1-0000 was capped once and
  // created by a later request of the same run: created, not skipped.
  for (const i of range(0, 979)) log.push(logRow(10000 + i, A1, v1(i), 'created'));
  for (const i of range(980, 982)) log.push(logRow(10000 + i, A1, v1(i), 'capped', { reason: 'campaign_cap' }));
  for (const i of range(983, 984)) log.push(logRow(10000 + i, A1, v1(i), 'capped', { reason: 'app_cap' }));
  log.push(logRow(10000, A1, v1(0), 'capped', { reason: 'campaign_cap', at: T0 + 1 }));
  // Delivered 0 … 699 (700), withdrawn 0 … 9 (10), expired unpulled 700 … 899 (200).
  for (const i of range(0, 699)) log.push(logRow(10000 + i, A1, v1(i), 'delivered'));
  for (const i of range(0, 9)) log.push(logRow(10000 + i, A1, v1(i), 'withdrawn'));
  for (const i of range(700, 899)) log.push(logRow(10000 + i, A1, v1(i), 'expired'));
  // Re-sent entries (same entry ids) and another app's entries for the same ids change nothing.
  for (const i of range(0, 99)) log.push(logRow(10000 + i, A1, v1(i), 'delivered'));
  for (const i of range(700, 799)) log.push(logRow(10000 + i, A1, v1(i), 'expired', { app: OTHER }), logRow(10000 + i, A1, v1(i), 'delivered', { app: OTHER }));
  // Responses: shown 0 … 599 (600; 0 … 99 twice, 0 … 49 as action_response), open 0 … 149 (150),
  // discard 150 … 199 (50), block 0 … 9 (10), error 200 … 204 (5), expired 205 … 207 (3).
  for (const i of range(0, 599)) events.push(response(APP, v1(i), ref1(i), 'shown', T0 + 2 * HOUR, i < 50));
  for (const i of range(0, 99)) events.push(response(APP, v1(i), ref1(i), 'shown', T0 + 3 * HOUR));
  for (const i of range(0, 149)) events.push(response(APP, v1(i), ref1(i), 'open'));
  for (const i of range(150, 199)) events.push(response(APP, v1(i), ref1(i), 'discard'));
  for (const i of range(0, 9)) events.push(response(APP, v1(i), ref1(i), 'block'));
  for (const i of range(200, 204)) events.push(response(APP, v1(i), ref1(i), 'error'));
  for (const i of range(205, 207)) events.push(response(APP, v1(i), ref1(i), 'expired'));
  // Responses that are not this campaign's actions' own: another user's ref (v1-0700 answering
  // v1-0701's action), an action id the run never had, another app.
  events.push(response(APP, v1(700), ref1(701), 'open'), response(APP, v1(701), `${10701}:${A1 + 1}`, 'open'), response(OTHER, v1(702), ref1(702), 'open'));
  // Converted: 0 … 79 two days in (80). Not: unsuccessful (80 … 89), four days in (90 … 94).
  for (const i of range(0, 79)) events.push(checkout(APP, v1(i), T0 + 2 * DAY));
  for (const i of range(80, 89)) events.push(checkout(APP, v1(i), T0 + 2 * DAY, false));
  for (const i of range(90, 94)) events.push(checkout(APP, v1(i), T0 + 4 * DAY));
  // Before the campaign: v1-0000 … v1-0019 one checkout a day before T0; v1-0100 one 15 days before
  // (outside the 14 days).
  for (const i of range(0, 19)) events.push(checkout(APP, v1(i), T0 - DAY));
  events.push(checkout(APP, v1(100), T0 - 15 * DAY));

  // Variant 2: w1 with two runs, converting in the second one's window (T0 + 6 days); w2 run a day
  // before NOW (window open), converted 12 hours before NOW; w3 likewise, its goal event an hour
  // after NOW (not counted yet). A response of w2 to w1's action does not count.
  outcomes.push(
    { inv: 5001, user: 'w1', variant: 2, action: A2, outcome: 'requested', at: T0 },
    { inv: 5002, user: 'w1', variant: 2, action: A2, outcome: 'requested', at: T0 + 5 * DAY },
    { inv: 5003, user: 'w2', variant: 2, action: A2, outcome: 'requested', at: NOW - DAY },
    { inv: 5004, user: 'w3', variant: 2, action: A2, outcome: 'requested', at: NOW - DAY },
  );
  log.push(logRow(5001, A2, 'w1', 'created'), logRow(5002, A2, 'w1', 'created'), logRow(5003, A2, 'w2', 'created'), logRow(5004, A2, 'w3', 'created'));
  log.push(logRow(5002, A2, 'w1', 'delivered'), logRow(5003, A2, 'w2', 'delivered'));
  events.push(response(APP, 'w1', `5002:${A2}`, 'open'), response(APP, 'w2', `5001:${A2}`, 'open'));
  events.push(checkout(APP, 'w1', T0 + 6 * DAY), checkout(APP, 'w2', NOW - 12 * HOUR), checkout(APP, 'w3', NOW + HOUR));

  // Another app's outcomes of a campaign with the same id, and another campaign of this app: neither counts.
  for (const i of range(0, 4)) outcomes.push({ app: OTHER, inv: 10000 + i, user: v1(i), variant: 1, action: A1, outcome: 'requested', at: T0 });
  outcomes.push({ app: OTHER, inv: 20100, user: ctl(100), variant: 0, action: 0, outcome: 'control', at: T0 });
  events.push(checkout(OTHER, ctl(100), T0 + DAY));
  for (const i of range(0, 4)) outcomes.push({ campaign: 'c2', inv: 30000 + i, user: ctl(i), variant: 0, action: 0, outcome: 'control', at: T0 });

  // Campaign c3: no control; one variant with 4 users, one converted. Campaign c4: control and a
  // variant, nobody converted.
  for (const i of range(0, 3)) outcomes.push({ campaign: 'c3', inv: 40000 + i, user: `x${i}`, variant: 1, action: 7, outcome: 'requested', at: T0 });
  events.push(checkout(APP, 'x0', T0 + HOUR));
  for (const i of range(0, 9))
    outcomes.push({
      campaign: 'c4',
      inv: 50000 + i,
      user: `y${i}`,
      variant: i < 5 ? 0 : 1,
      action: i < 5 ? 0 : 8,
      outcome: i < 5 ? 'control' : 'requested',
      at: T0,
    });

  // Campaign c5 (clock skew): z0's and z2's device clocks are 2 hours behind, so their checkouts an
  // hour after the run have device times an hour before it; z1's is 2 days behind, so its checkout
  // four days in (outside P3D) reads two days in. Corrected times decide: z0 and z2 converted, z1 not
  // (device times would say z1 only).
  for (const i of range(0, 2)) outcomes.push({ campaign: 'c5', inv: 60000 + i, user: `z${i}`, variant: 1, action: 9, outcome: 'requested', at: T0 });
  const behind = (user: string, real: number, by: number): CanonicalEvent => ({
    ...checkout(APP, user, real - by),
    sent_at: real - by + 5_000,
    received_at: real + 5_000,
    corrected_time: real,
  });
  events.push(behind('z0', T0 + HOUR, 2 * HOUR), behind('z2', T0 + HOUR, 2 * HOUR), behind('z1', T0 + 4 * DAY, 2 * DAY));

  await analytics.insert('campaign_outcomes', outcomes.map(outcomeRow));
  // A redelivered trigger writes its outcome again (same key and content, another part): FINAL keeps one.
  await analytics.insert('campaign_outcomes', outcomes.slice(0, 100).map(outcomeRow));
  await analytics.insert('actions_log', log);
  await seed(analytics, events);
});

const responses = (shown: number, open: number, discard: number, block: number, error: number, expired: number) => ({
  shown,
  open,
  discard,
  block,
  error,
  expired,
});
const NO_ACTIONS = { created: 0, delivered: 0, withdrawn: 0, expired: 0, responses: responses(0, 0, 0, 0, 0, 0), users_blocked: 0, users_discarded: 0 };
const NO_SKIPS = { total: 0, reasons: {} };

describe('campaignReport', () => {
  it('counts every group by hand', async () => {
    const r = await report('c1', 2);
    expect(r.campaign_id).toBe('c1');
    expect(r.as_of).toBe('2026-03-10T00:00:00.000Z');
    expect(r.goal).toEqual(GOAL);
    expect(r.confidence).toBe(0.95);
    expect(r.control).toEqual({
      audience: 1000,
      runs: 1000,
      requested: 0,
      skipped: NO_SKIPS,
      ...NO_ACTIONS,
      converted: 50,
      conversion_rate: 0.05,
      attribution_open: 0,
      matured: 1000,
      matured_converted: 50,
    });
    const [first, second] = r.variants;
    expect(first).toMatchObject({
      variant: 1,
      action_id: A1,
      audience: 1000,
      runs: 1000,
      requested: 990,
      // 10 skipped by the worker + 5 capped = 15
      skipped: {
        total: 15,
        reasons: { app_cap: 2, campaign_cap: 3, 'template_variable_missing: catalog.drug.D-9': 4, 'template_variable_missing: user.name': 6 },
      },
      created: 980,
      delivered: 700,
      withdrawn: 10,
      expired: 200,
      responses: responses(600, 150, 50, 10, 5, 3),
      users_blocked: 10,
      users_discarded: 50,
      converted: 80,
      conversion_rate: 0.08,
      attribution_open: 0,
      matured: 1000,
      matured_converted: 80,
    });
    expect(second).toEqual({
      variant: 2,
      action_id: A2,
      audience: 3,
      runs: 4,
      requested: 4,
      skipped: NO_SKIPS,
      created: 4,
      delivered: 2,
      withdrawn: 0,
      expired: 0,
      responses: responses(0, 1, 0, 0, 0, 0),
      users_blocked: 0,
      users_discarded: 0,
      converted: 2,
      conversion_rate: 2 / 3,
      attribution_open: 2,
      // w1's two windows have closed (converted in the second); w2's and w3's are open.
      matured: 1,
      matured_converted: 1,
      uplift: expect.any(Object),
      readings: expect.any(Object),
      epoch_weighted: null,
    });
    expect(r.variants).toHaveLength(2);
    // The guardrails count users: variant 1's 10 blockers and 50 discarders against variant 2's none.
    expect(r.guardrails.variants.map((v) => [v.block.users, v.block.reference_rate, v.discard.users, v.discard.reference_rate])).toEqual([
      [10, 0, 50, 0],
      [0, 0.01, 0, 0.05],
    ]);
  });

  it('uplift of variant 1 against control, as computed by hand', async () => {
    // p_c = 50/1000 = 0.05, p_v = 80/1000 = 0.08, d = 0.03
    // SE = √(0.05·0.95/1000 + 0.08·0.92/1000) = √0.0001211 = 0.011004544515789829
    // CI = 0.03 ∓ 1.959963984540054 · 0.011004544515789829 = [0.008431489082784, 0.051568510917216]
    // z = 0.03 / 0.011004544515789829 = 2.726146453127; p = 0.006407855935
    // relative = 0.08 / 0.05 − 1 = 0.6; SE_log = √(0.92/80 + 0.95/50) = √0.0305 = 0.174642491966
    // CI = exp(ln 1.6 ∓ 1.959963984540054 · 0.174642491966) − 1 = [0.136224171414, 1.253076518178]
    const u = (await report('c1', 2)).variants[0]?.uplift;
    expect(u?.absolute.estimate).toBeCloseTo(0.03, 15);
    expect(u?.absolute.ci?.[0]).toBeCloseTo(0.008431489082784, 14);
    expect(u?.absolute.ci?.[1]).toBeCloseTo(0.051568510917216, 14);
    expect(u?.z).toBeCloseTo(2.726146453127, 11);
    expect(u?.p_value).toBeCloseTo(0.006407855935, 11);
    expect(u?.significant).toBe(true);
    expect(u?.relative?.estimate).toBeCloseTo(0.6, 14);
    expect(u?.relative?.ci?.[0]).toBeCloseTo(0.136224171414, 11);
    expect(u?.relative?.ci?.[1]).toBeCloseTo(1.253076518178, 11);
  });

  it('is the example of docs/campaigns.md, "Report" (control and variant 1)', async () => {
    const doc = readFileSync(resolve(__dirname, '../../../../docs/campaigns.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### The answer'), doc.indexOf('### Uplift'));
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    // The example's document has one variant and a holdout of 0.5; variant 2's three users (from an
    // earlier version of the document) are left out of the example, not of the correction's family.
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: { holdout: 0.5, weights: [1] }, goal: GOAL, now: new Date(NOW) });
    expect(JSON.parse(example ?? 'null')).toEqual({ ...r, variants: r.variants.slice(0, 1) });
  });

  it('a split unlike the document’s is flagged: 1,000 control and 1,000 treated under a 0.1 holdout', async () => {
    // χ² = (1000 − 200)²/200 + (1000 − 1800)²/1800 = 3200 + 355.56 = 3555.56 on 1 df (R's chisq.test:
    // 3555.5555555555557, p = 0).
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: { holdout: 0.1, weights: [1] }, goal: GOAL, now: new Date(NOW) });
    expect(r.srm).toMatchObject({
      groups: ['control', 'variant 1'],
      observed: [1000, 1000],
      expected: [200, 1800],
      df: 1,
      p_value: 0,
      mismatch: true,
      expected_from: 'current document',
    });
    expect(r.srm?.chi_square).toBeCloseTo(3555.5555555555557, 9);
    expect(r.srm?.warning).toBe('The split of users is not the configured one (p < 0.000001): find out why before reading any result.');
    // The same counts under the configured 0.5: χ² = 0, p = 1, no warning.
    expect((await report('c1', 1)).srm).toMatchObject({ chi_square: 0, p_value: 1, mismatch: false, warning: null });
  });

  it('every reading of variant 1 against control (50/1,000 and 80/1,000), Holm across the two variants', async () => {
    const r = await report('c1', 2);
    expect(r.correction).toMatchObject({ method: 'holm', family: 2 });
    const v = r.variants[0]?.readings;
    expect(v?.primary).toBe('sequential');
    // The numbers of each reading are readings.test.ts's; here, that the report carries them.
    expect(v?.fixed_horizon.significant).toBe(true);
    expect(v?.sequential.significant).toBe(false);
    expect(v?.relative).toMatchObject({ estimate: expect.closeTo(0.6, 14), zero_count_guard: false });
    expect(v?.bayes).toMatchObject({ prior: 'Beta(1,1)', draws: 10000, seed: 42 });
    // CUPED over the 1,000 matured users of each group, x the checkouts of the 14 days before T0:
    // control Σx = 2 + 9·1 + 1 (c-0070) = 12, Σx² = 4 + 9 + 1 = 14, Σxy = 2 + 9 = 11 (c-0000 … c-0009
    // converted, c-0070 not); variant 1 Σx = Σx² = Σxy = 20 (v1-0000 … v1-0019, all converted).
    const expected = cuped({ n: 1000, sy: 50, syy: 50, sx: 12, sxx: 14, sxy: 11 }, { n: 1000, sy: 80, syy: 80, sx: 20, sxx: 20, sxy: 20 }, zFor(1 - 0.05 / 2));
    expect(v?.cuped).toMatchObject({ ...expected, pre_period_days: 14 });
    expect(v?.cuped?.variance_reduction).toBeGreaterThan(0);
  });

  it('a declared sample size (the document’s sample_size) makes the fixed-horizon reading primary', async () => {
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: split(2), plannedUsers: 20_000, goal: GOAL, now: new Date(NOW) });
    expect(r.variants[0]?.readings).toMatchObject({ primary: 'fixed_horizon', sequential: { tuning_users: 20_000 } });
  });

  it('uplift of the small variant 2: a wide interval, still above 0', async () => {
    // p_c = 0.05, p_v = 2/3, d = 0.616666666667
    // SE = √(0.05·0.95/1000 + (2/3)(1/3)/3) = √(0.0000475 + 0.074074074074) = √0.074121574074 = 0.272252776063
    // CI = 0.616666666667 ∓ 1.959963984540054 · 0.272252776063 = 0.616666666667 ∓ 0.533605635775 = [0.083061030892, 1.150272302441]
    const u = (await report('c1', 2)).variants[1]?.uplift;
    expect(u?.absolute.estimate).toBeCloseTo(0.616666666667, 12);
    expect(u?.absolute.ci?.[0]).toBeCloseTo(0.083061030892, 11);
    expect(u?.absolute.ci?.[1]).toBeCloseTo(1.150272302441, 11);
    expect(u?.significant).toBe(true);
  });

  it('a window of calendar months: P1M from 1 March ends on 1 April, still open on 10 March', async () => {
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: split(2), goal: { ...GOAL, within: 'P1M' }, now: new Date(NOW) });
    // Control: the 50 as before, and c-0060 … c-0069 (3 days and 1 ms in) now inside the window.
    expect(r.control).toMatchObject({ audience: 1000, converted: 60, conversion_rate: 0.06, attribution_open: 1000, matured: 0, matured_converted: 0 });
    // Variant 1: 80, and 90 … 94 (4 days in). Variant 2: w1 at its first run too; w2, w3 as before.
    expect(r.variants[0]).toMatchObject({ converted: 85, attribution_open: 1000, matured: 0, matured_converted: 0, readings: null });
    expect(r.variants[1]).toMatchObject({ converted: 2, attribution_open: 3, matured: 0, matured_converted: 0 });
  });

  it("a goal's literals are query parameters: a quote in a value is a value", async () => {
    const goal: ReportGoal = { event: 'checkout', where: [{ prop: 'currency', op: 'in', value: ["KES' OR 1 = 1 --", 'USD'] }], within: 'P3D' };
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: split(2), goal, now: new Date(NOW) });
    expect([r.control.converted, ...r.variants.map((v) => v.converted)]).toEqual([0, 0, 0]);
    const kes = await campaignReport(analytics, {
      appId: APP,
      campaignId: 'c1',
      split: split(2),
      goal: { ...goal, where: [{ prop: 'currency', op: 'in', value: ['KES'] }] },
      now: new Date(NOW),
    });
    // Every checkout is in KES, successful or not: control 50 + c-0050 … c-0059; variant 1: 80 + 80 … 89.
    expect([kes.control.converted, ...kes.variants.map((v) => v.converted)]).toEqual([60, 90, 2]);
  });

  it('without a goal: the same counts, no conversion fields, no uplift', async () => {
    const r = await report('c1', 2, false);
    expect(r.goal).toBeNull();
    expect(r.control).toMatchObject({ audience: 1000, converted: null, conversion_rate: null, attribution_open: null, matured: null, matured_converted: null });
    expect(r.variants[0]).toMatchObject({
      audience: 1000,
      created: 980,
      responses: responses(600, 150, 50, 10, 5, 3),
      converted: null,
      conversion_rate: null,
      uplift: null,
    });
    expect(r.variants[1]).toMatchObject({ audience: 3, runs: 4, converted: null, uplift: null });
  });

  it('no control group: control is empty and no variant has an uplift', async () => {
    const r = await report('c3', 1);
    expect(r.control).toEqual({
      audience: 0,
      runs: 0,
      requested: 0,
      skipped: NO_SKIPS,
      ...NO_ACTIONS,
      converted: 0,
      conversion_rate: null,
      attribution_open: 0,
      matured: 0,
      matured_converted: 0,
    });
    expect(r.variants).toEqual([
      {
        variant: 1,
        action_id: variantActionId(APP, 'c3', 1),
        audience: 4,
        runs: 4,
        requested: 4,
        skipped: NO_SKIPS,
        ...NO_ACTIONS,
        converted: 1,
        conversion_rate: 0.25,
        attribution_open: 0,
        matured: 4,
        matured_converted: 1,
        uplift: null,
        readings: null,
        epoch_weighted: null,
      },
    ]);
  });

  it('zero conversions in both groups: a rate of 0, no interval, no relative uplift', async () => {
    const r = await report('c4', 1);
    expect(r.control).toMatchObject({ audience: 5, converted: 0, conversion_rate: 0 });
    expect(r.variants[0]).toMatchObject({
      audience: 5,
      converted: 0,
      conversion_rate: 0,
      uplift: { absolute: { estimate: 0, ci: null }, relative: null, z: null, p_value: null, significant: false },
    });
  });

  it('attributes goal events by their corrected time: the run is a server instant, device clocks are off', async () => {
    const r = await report('c5', 1);
    expect(r.variants.map((v) => [v.audience, v.converted])).toEqual([[3, 2]]);
  });

  it('a campaign without outcomes: zeros for control and each variant of the document', async () => {
    const r = await report('none', 3);
    expect(r.variants.map((v) => [v.variant, v.audience, v.converted, v.uplift])).toEqual([
      [1, 0, 0, null],
      [2, 0, 0, null],
      [3, 0, 0, null],
    ]);
    expect(r.control.audience).toBe(0);
  });

  it('the other app of the same campaign id sees only its own rows', async () => {
    const r = await campaignReport(analytics, { appId: OTHER, campaignId: 'c1', split: split(1), goal: GOAL, now: new Date(NOW) });
    expect(r.control).toMatchObject({ audience: 1, converted: 1 });
    expect(r.variants[0]).toMatchObject({
      audience: 5,
      requested: 5,
      created: 0,
      delivered: 0,
      expired: 0,
      responses: responses(0, 0, 0, 0, 0, 0),
      converted: 0,
    });
  });

  it('the sample-ratio check counts each user once, in the group and period of their first assignment', async () => {
    // Campaign 'edit': holdout 0.5 until T0 + 5 days, then 0.1. Period 1: 11 control (e-c-00 … 10),
    // 10 treated; period 2: 2 control, 18 treated, and e-c-00 again, now treated (it stays control,
    // of period 1). Expected: control 21·0.5 + 20·0.1 = 12.5, variant 21·0.5 + 20·0.9 = 28.5.
    const EDIT = T0 + 5 * DAY;
    const rows: Outcome[] = [];
    const add = (user: string, variant: number, at: number, inv: number) =>
      rows.push({
        campaign: 'edit',
        inv,
        user,
        variant,
        action: variant === 0 ? 0 : 7,
        outcome: variant === 0 ? 'control' : 'requested',
        at,
        written: at + 1000,
      });
    for (const i of range(0, 10)) add(`e-c-${i}`, 0, T0 + HOUR, 1);
    for (const i of range(0, 9)) add(`e-v-${i}`, 1, T0 + HOUR, 1);
    for (const i of range(11, 12)) add(`e-c-${i}`, 0, EDIT + HOUR, 2);
    for (const i of range(10, 27)) add(`e-v-${i}`, 1, EDIT + HOUR, 2);
    add('e-c-0', 1, EDIT + HOUR, 2);
    await analytics.insert('campaign_outcomes', rows.map(outcomeRow));
    const history = [
      { from: T0 - DAY, holdout: 0.5, weights: [1] },
      { from: EDIT, holdout: 0.1, weights: [1] },
    ];
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'edit', split: { holdout: 0.1, weights: [1], history }, now: new Date(NOW) });
    expect([r.control.audience, r.variants[0]?.audience]).toEqual([13, 29]);
    expect(r.srm).toMatchObject({
      groups: ['control', 'variant 1'],
      observed: [13, 28],
      expected: [12.5, 28.5],
      mismatch: false,
      expected_from: 'document history',
      periods: [
        { from: new Date(T0 - DAY).toISOString(), holdout: 0.5, weights: [1], users: 21 },
        { from: new Date(EDIT).toISOString(), holdout: 0.1, weights: [1], users: 20 },
      ],
    });
    // Without the history, every user is expected under 0.1: 13 control where 4.2 are expected.
    const current = await campaignReport(analytics, { appId: APP, campaignId: 'edit', split: { holdout: 0.1, weights: [1] }, now: new Date(NOW) });
    expect(current.srm).toMatchObject({ observed: [13, 29], expected_from: 'current document', mismatch: true });
    // The same first assignments give the power reading its pace: 42 users over 10 days (1 to 10 March).
    const paced = await campaignReport(analytics, {
      appId: APP,
      campaignId: 'edit',
      split: { holdout: 0.1, weights: [1], history },
      goal: GOAL,
      minEffect: 0.05,
      now: new Date(NOW),
    });
    expect(paced.variants[0]?.readings?.power.remaining).toMatchObject({ users_assigned: 42, days_so_far: 10, users_per_day: 4.2 });
  });

  it('a goal value: mean cart_price per user, capped at the 99th percentile of the users with a value, Welch against control', async () => {
    // Every checkout is 10 (cart_price). c-0000 has two in its window (T0 and T0 + 1 day): 20. The
    // 130 matured users with a value are 129 × 10 and one 20, so the cap (quantileExact(0.99)) is 10
    // and c-0000 is capped. Control: 50 users × 10 over 1,000 matured; variant 1: 80 × 10 over 1,000.
    const r = await campaignReport(analytics, { appId: APP, campaignId: 'c1', split: split(2), goal: { ...GOAL, value: 'cart_price' }, now: new Date(NOW) });
    const v = r.variants[0]?.readings?.value;
    const expected = compareValues({ n: 1000, sy: 500, syy: 5000 }, { n: 1000, sy: 800, syy: 8000 }, 1 - 0.05 / 2)!;
    expect(v).toMatchObject({ name: 'Value per user', property: 'cart_price', cap: 10, capped_users: 1, ...expected });
    expect(v?.control_mean).toBe(0.5);
    expect(v?.variant_mean).toBe(0.8);
    // Variant 2 has one matured user: no variance, no reading. Without a value, no value reading.
    expect(r.variants[1]?.readings?.value).toBeNull();
    expect((await report('c1', 2)).variants[0]?.readings?.value).toBeNull();
  });
});
