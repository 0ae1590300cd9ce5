import { topics, type Bus, type SchemaRegistry } from '@evp/core';
import { assign, runInvId } from '@evp/segmenter';
import { waitFor } from '@evp/testkit';
import type { RunningPipeline } from '../pipeline';
import { API_KEY, SDK_KEY } from './scenario';
import type { TestClock } from './segments-scenario';
import { call } from './call';

const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const APP = 'e2e-app';

/** Report counts of a group that the campaign sent nothing (control) or one action (the variant) whose user opened it. */
const group = (sent: 0 | 1) => ({
  audience: 1,
  runs: 1,
  requested: sent,
  skipped: { total: 0, reasons: {} },
  created: sent,
  delivered: sent,
  withdrawn: 0,
  expired: 0,
  responses: { shown: 0, open: sent, discard: 0, block: 0, error: 0, expired: 0 },
  // Both users reach the goal: control converts too, so the uplift is nil.
  converted: 1,
  conversion_rate: 1,
  attribution_open: 1,
  // The goal window (P3D) is still open for both: nobody has matured, so there is no reading yet.
  matured: 0,
  matured_converted: 0,
  // The guardrails' counts: nobody blocked or discarded.
  users_blocked: 0,
  users_discarded: 0,
});

/**
 * Campaigns end to end over HTTP (issue 14, "Done when"): catalog records and events are uploaded with
 * the SDK key, a segment and a campaign triggered by entering it are defined with the API key; both
 * users enter the segment; the one the holdout puts in the variant pulls an action personalised from
 * the user and drug catalogs (with the run's inv_id and the variant's action_id), the control user
 * pulls nothing; the treated user opens the action, both reach the goal, and the report shows the
 * variant's steps beside control's numbers. Shared by the embedded and the real-stack tests.
 *
 * Times come from the pipeline's clock (`clock`), which the segments scenario moves on: the segment
 * engine and the report read it, so events are stamped by it too.
 */
export function defineCampaignScenario(get: () => { pipeline: RunningPipeline; bus: Bus; registry: SchemaRegistry; clock: TestClock }) {
  it('a segment entry triggers a campaign: the treated user pulls a personalised action, opens it and converts; control gets nothing; the report shows both', async () => {
    const { pipeline, bus, registry, clock } = get();
    const base = pipeline.baseUrl;
    const since = Date.now() - 1_000;
    // Paths and ids of this run only: on a shared broker the pipeline also reads earlier runs' records.
    const run = `cmp-${Date.now().toString(36)}`;
    const drug = `D-${run}`;

    const segment = await call(`${base}/v1/segments`, API_KEY, 'POST', {
      name: 'viewed this run’s refill page',
      definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: `/${run}/refill` }], count: { gte: 1 }, within: 'PT1H' },
    });
    expect(segment.status).toBe(201);
    const segmentId = segment.body.id as string;
    const goal = { event: 'page', where: [{ prop: 'path', op: 'eq', value: `/${run}/order-placed` }], within: 'P3D' };
    const created = await call(`${base}/v1/campaigns`, API_KEY, 'POST', {
      name: 'Refill reminder',
      trigger: { segment_entry: segmentId },
      action: {
        type: 'message',
        render_method: 'in_app_message',
        delivery_mode: 'one-off',
        content: { title: `{{ catalog.drug["${drug}"].name }} is ready`, body: 'Hi {{ user.name }}, your refill is waiting.' },
        tags: ['refill'],
        expires_after: 'P1D',
      },
      holdout: 0.5,
      goal,
    });
    expect([created.status, created.body.state]).toEqual([201, 'draft']);
    const campaignId = created.body.id as string;
    const actionId = created.body.action_ids[0] as number;

    // Assignment is a pure function of (campaign, user): pick one user of each group.
    const plan = { holdout: 0.5, weights: [1] };
    const candidates = Array.from({ length: 64 }, (_, i) => `${run}-u${i}`);
    const treated = candidates.find((u) => assign(campaignId, u, plan).group === 'variant') as string;
    const control = candidates.find((u) => assign(campaignId, u, plan).group === 'control') as string;

    const users = await call(`${base}/v1/ingest/catalog/user`, SDK_KEY, 'POST', [
      // `timezone` is required by the user catalog; UTC keeps the action available at the trigger.
      { id: treated, name: 'Amina', timezone: 'UTC' },
      { id: control, name: 'Baraka', timezone: 'UTC' },
    ]);
    const drugs = await call(`${base}/v1/ingest/catalog/drug`, SDK_KEY, 'POST', [{ id: drug, name: 'Amoxicillin' }]);
    expect([users.status, users.body.accepted, drugs.status, drugs.body.accepted]).toEqual([200, 2, 200, 1]);
    // The worker renders from what the sink stored: wait until the preview renders both records.
    const preview = await waitFor(
      async () => {
        const p = await call(`${base}/v1/campaigns/preview`, API_KEY, 'POST', { campaign: campaignId, user_id: treated });
        return p.body.outcome === 'requested' ? p.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the catalog records in ClickHouse' },
    );
    expect(preview.action.content).toEqual({ title: 'Amoxicillin is ready', body: 'Hi Amina, your refill is waiting.' });
    expect((await call(`${base}/v1/campaigns/${campaignId}/resume`, API_KEY, 'POST')).body.state).toBe('active');

    const upload = (user: string, events: Record<string, unknown>[]) =>
      call(`${base}/v1/ingest/log`, SDK_KEY, 'POST', {
        id: user,
        tz: '+00:00',
        internal: { s_id: `${user}_${clock.now()}_0`, sdk: 'web/1.0.0', a_id: APP, a_ver: '1.0.0 (1)', d_id: `d-${user}`, os: 'web' },
        data: events,
      });
    const page = (path: string) => ({
      time: utc(clock.now()),
      __ol: true,
      name: 'page',
      property: 'Refill',
      ctx: { path, title: 'Refill', duration: 1, render_time: 10 },
    });
    for (const user of [treated, control]) expect((await upload(user, [page(`/${run}/refill`)])).body.accepted).toBe(1);

    // Both enter: control gets its outcome row and nothing else, so once the report counts both, control's pull is final.
    await waitFor(
      async () => {
        const r = (await call(`${base}/v1/campaigns/${campaignId}/report`, API_KEY, 'GET')).body;
        return r.control?.audience === 1 && r.variants?.[0]?.requested === 1;
      },
      { timeoutMs: 60_000, what: 'both users’ campaign outcomes' },
    );
    const pull = async (user: string) =>
      (
        await call(`${base}/v1/action/sdk/pull`, SDK_KEY, 'POST', {
          user_id: user,
          type: 'message',
          render_method: 'in_app_message',
          delivery_mode: 'one-off',
        })
      ).body.data as Record<string, any>[];
    let pulled: Record<string, any>[] = [];
    await waitFor(async () => (pulled = await pull(treated)).length > 0, { timeoutMs: 60_000, what: 'the campaign action available to the SDK pull' });
    expect(await pull(control)).toEqual([]);

    // The run's inv_id is derived from the membership record that triggered it (docs/campaigns.md, "Triggers and delivery").
    const entries: { user: string; at: unknown }[] = [];
    const raw: Buffer[] = [];
    await bus.scan(topics.segmentsMembership, since, (m) => void raw.push(m.value));
    for (const value of raw) {
      const c = (await registry.decode(value)) as { segment_id: string; user_id: string; change: string; at: unknown };
      if (c.segment_id === segmentId && c.user_id === treated && c.change === 'entered') entries.push({ user: c.user_id, at: c.at });
    }
    expect(entries).toHaveLength(1);
    const invId = runInvId(APP, campaignId, `entry:${segmentId}:${treated}:${String(entries[0]?.at)}`);
    expect(
      pulled.map((a) => [a.user_id, a.payload.internal.inv_id, a.payload.internal.action_id, a.payload.internal.ref, a.payload.content, a.payload.tags]),
    ).toEqual([[treated, invId, actionId, `${invId}:${actionId}`, { title: 'Amoxicillin is ready', body: 'Hi Amina, your refill is waiting.' }, ['refill']]]);

    const opened = {
      time: utc(clock.now()),
      __ol: true,
      name: 'nudge_response',
      property: 'in_app_message',
      ctx: { ref: pulled[0]?.payload.internal.ref, time: pulled[0]?.payload.internal.ref_time, response: 'open' },
    };
    expect((await upload(treated, [opened, page(`/${run}/order-placed`)])).body.accepted).toBe(2);
    expect((await upload(control, [page(`/${run}/order-placed`)])).body.accepted).toBe(1);

    const report = await waitFor(
      async () => {
        const r = (await call(`${base}/v1/campaigns/${campaignId}/report`, API_KEY, 'GET')).body;
        const v = r.variants?.[0];
        return r.control?.converted === 1 && v?.converted === 1 && v.responses.open === 1 && v.delivered === 1 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the report counting the open and both conversions' },
    );
    expect(report).toEqual({
      campaign_id: campaignId,
      as_of: expect.any(String),
      goal,
      confidence: 0.95,
      // Not an adaptive campaign: no epochs, no epoch-weighted estimate.
      allocation: null,
      control: group(0),
      srm: {
        name: 'Sample ratio check',
        explanation: expect.stringMatching(
          /^Were users split as the campaign says \(control 50\.0%, variant 1 50\.0%\)\? Observed: control 50\.0%, variant 1 50\.0%\./,
        ),
        groups: ['control', 'variant 1'],
        observed: [1, 1],
        expected: [1, 1],
        chi_square: 0,
        df: 1,
        p_value: 1,
        threshold: 0.001,
        mismatch: false,
        warning: null,
        // One period: the document's split has not changed since the campaign was created.
        expected_from: 'document history',
        periods: [{ from: expect.any(String), holdout: 0.5, weights: [1], users: 2 }],
      },
      // One variant: its block and discard rates shown, nothing to compare them with.
      guardrails: {
        name: 'Guardrails',
        explanation: expect.stringMatching(/^The share of users who blocked or discarded the message\. With one variant there is nothing to compare it with/),
        alpha: 0.05,
        reference: 'other variants',
        variants: [
          {
            variant: 1,
            block: { users: 0, rate: 0, reference_rate: null, difference: null, p_value: null, breach: false },
            discard: { users: 0, rate: 0, reference_rate: null, difference: null, p_value: null, breach: false },
          },
        ],
        warnings: [],
      },
      correction: {
        name: 'Several variants',
        explanation: 'No variant has matured users beside matured control users yet: nothing is compared, so nothing is corrected.',
        method: 'holm',
        family: 0,
      },
      variants: [
        {
          variant: 1,
          action_id: actionId,
          ...group(1),
          readings: null,
          epoch_weighted: null,
          // Both proportions are 1: no variance, so no interval, z or p-value (docs/campaigns.md, "Uplift").
          uplift: { absolute: { estimate: 0, ci: null }, relative: { estimate: 0, ci: [0, 0] }, z: null, p_value: null, significant: false },
        },
      ],
    });
  });
}
