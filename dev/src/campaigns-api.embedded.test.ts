import { createLogger } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, OTHER_API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

// The campaigns API composed as `npm start` composes it (dev/src/pipeline.ts: the campaign worker
// behind POST /v1/campaigns/{id}/trigger, the report behind GET …/report), over real HTTP on the
// embedded adapters: catalog uploads → a preview personalised from them → an API-triggered
// campaign → the action pulled with the SDK key, with the run's inv_id and the variant's action_id.
describe('campaigns API on the embedded pipeline', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('campaignsapi').replace(/-/g, '_') });

  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('campaigns', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('previews, triggers and delivers a campaign personalised from the user and drug catalogs', async () => {
    expect((await call('POST', '/v1/ingest/catalog/user', SDK_KEY, [{ id: 'user-c1', name: 'Amina', timezone: 'Africa/Nairobi' }])).status).toBe(200);
    expect((await call('POST', '/v1/ingest/catalog/drug', SDK_KEY, [{ id: 'D-1', name: 'Amoxicillin' }])).status).toBe(200);
    const document = {
      name: 'Refill',
      trigger: { api: true },
      action: {
        type: 'message',
        render_method: 'in_app_message',
        delivery_mode: 'one-off',
        content: { title: '{{ catalog.drug["D-1"].name }} is in stock', body: 'Hi {{ user.name }}' },
        tags: ['refill'],
        expires_after: 'P1D',
      },
    };
    // The preview reads what the sink stored: poll it until both records are in.
    let preview: Record<string, any> = {};
    await waitFor(
      async () => {
        preview = (await call('POST', '/v1/campaigns/preview', API_KEY, { campaign: document, user_id: 'user-c1' })).body;
        return preview.outcome === 'requested';
      },
      { timeoutMs: 30_000, what: 'the catalog records in ClickHouse' },
    );
    expect(preview.action.content).toEqual({ title: 'Amoxicillin is in stock', body: 'Hi Amina' });

    const created = await call('POST', '/v1/campaigns', API_KEY, document);
    expect([created.status, created.body.state]).toEqual([201, 'draft']);
    const id = created.body.id as string;
    expect((await call('POST', `/v1/campaigns/${id}/resume`, API_KEY)).body.state).toBe('active');
    // Another app cannot trigger it.
    expect((await call('POST', `/v1/campaigns/${id}/trigger`, OTHER_API_KEY, { user_ids: ['user-c1'] })).status).toBe(404);
    const run = await call('POST', `/v1/campaigns/${id}/trigger`, API_KEY, { user_ids: ['user-c1', 'user-c2'] });
    expect([run.status, run.body.users]).toEqual([202, 2]);

    // user-c1 gets the action; user-c2 has no user record, so is skipped (template_variable_missing: user.name).
    let pulled: Record<string, any>[] = [];
    await waitFor(
      async () => {
        const r = await call('POST', '/v1/action/sdk/pull', SDK_KEY, {
          user_id: 'user-c1',
          type: 'message',
          render_method: 'in_app_message',
          delivery_mode: 'one-off',
        });
        pulled = r.body.data as Record<string, any>[];
        return pulled.length > 0;
      },
      { timeoutMs: 30_000, what: 'the campaign action available to the SDK pull' },
    );
    expect(pulled.map((a) => [a.user_id, a.payload.internal.inv_id, a.payload.internal.action_id, a.payload.content, a.payload.tags])).toEqual([
      ['user-c1', run.body.inv_id, created.body.action_ids[0], { title: 'Amoxicillin is in stock', body: 'Hi Amina' }, ['refill']],
    ]);
    const report = await waitFor(
      async () => {
        const r = (await call('GET', `/v1/campaigns/${id}/report`, API_KEY)).body;
        return r.variants?.[0]?.audience === 2 ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'the report counting both users' },
    );
    expect([report.variants[0].requested, report.variants[0].skipped]).toEqual([1, { total: 1, reasons: { 'template_variable_missing: user.name': 1 } }]);
  });

  it('checks the split against the document’s history: 400 users under a 0.5 holdout stay consistent after an edit to 0.1, and a broken split is flagged', async () => {
    const document = {
      name: 'Split',
      trigger: { api: true },
      holdout: 0.5,
      action: { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off', content: { title: 'Hi', body: 'Hello' }, expires_after: 'P1D' },
    };
    const created = await call('POST', '/v1/campaigns', API_KEY, document);
    const id = created.body.id as string;
    expect((await call('POST', `/v1/campaigns/${id}/resume`, API_KEY)).body.state).toBe('active');
    const users = Array.from({ length: 400 }, (_, i) => `split-${i}`);
    expect((await call('POST', `/v1/campaigns/${id}/trigger`, API_KEY, { user_ids: users })).status).toBe(202);
    const read = (total: number) =>
      waitFor(
        async () => {
          const r = (await call('GET', `/v1/campaigns/${id}/report`, API_KEY)).body;
          return r.control?.audience + r.variants?.[0]?.audience === total ? r : undefined;
        },
        { timeoutMs: 30_000, what: `the report counting ${total} users` },
      );
    const before = await read(400);
    expect(before.srm).toMatchObject({ groups: ['control', 'variant 1'], expected: [200, 200], df: 1, expected_from: 'document history' });
    // The document changed to a 0.1 holdout after these users were assigned: they are still expected
    // under the 0.5 they were assigned with (the current document alone would expect 40 control).
    expect((await call('POST', `/v1/campaigns/${id}/pause`, API_KEY)).body.state).toBe('paused');
    expect((await call('PUT', `/v1/campaigns/${id}`, API_KEY, { ...document, holdout: 0.1 })).status).toBe(200);
    const edited = await read(400);
    expect(edited.srm).toMatchObject({ expected: [200, 200], mismatch: false, expected_from: 'document history' });
    // A split broken at the source: 150 of the treated users' outcomes lost (as a faulty assignment
    // or a lost write would), so about 200 control against 50 treated where 125 each are expected.
    const control = before.control.audience as number;
    await parts.analytics.command(
      `DELETE FROM campaign_outcomes WHERE campaign_id = {id:String} AND variant = 1 AND user_id IN (
         SELECT user_id FROM campaign_outcomes WHERE campaign_id = {id:String} AND variant = 1 ORDER BY user_id LIMIT 150)`,
      { id },
    );
    const broken = await read(400 - 150);
    expect(broken.srm.observed).toEqual([control, 400 - control - 150]);
    expect(broken.srm).toMatchObject({ mismatch: true, p_value: expect.any(Number) });
    expect(broken.srm.p_value).toBeLessThan(0.001);
    expect(broken.srm.warning).toMatch(/^The split of users is not the configured one \(p /);
  });

  it('refuses deleting a segment that a campaign not ended names (segment_entry or schedule): 409 conflict with the campaign ids', async () => {
    const segment = await call('POST', '/v1/segments', API_KEY, { name: 'refill page', definition: { event: 'page', within: 'PT1H' } });
    expect(segment.status).toBe(201);
    const segmentId = segment.body.id as string;
    const action = {
      type: 'message',
      render_method: 'in_app_message',
      delivery_mode: 'one-off',
      content: { title: 'Refill', body: 'Your refill is waiting' },
      expires_after: 'P1D',
    };
    const campaign = async (name: string, trigger: object) => {
      const c = await call('POST', '/v1/campaigns', API_KEY, { name, trigger, action });
      expect(c.status).toBe(201);
      return c.body.id as string;
    };
    const onEntry = await campaign('on entry (draft)', { segment_entry: segmentId });
    const scheduled = await campaign('scheduled (active)', { schedule: { every: 'P1D' }, segment: segmentId });
    const ended = await campaign('ended', { segment_entry: segmentId });
    expect((await call('POST', `/v1/campaigns/${scheduled}/resume`, API_KEY)).body.state).toBe('active');
    expect((await call('POST', `/v1/campaigns/${ended}/end`, API_KEY)).body.state).toBe('ended');
    await campaign('another trigger', { api: true });

    const refused = await call('DELETE', `/v1/segments/${segmentId}`, API_KEY);
    expect([refused.status, refused.body.error.code, refused.body.error.path, refused.body.error.details]).toEqual([
      409,
      'conflict',
      'params.segment_id',
      { campaign_ids: [onEntry, scheduled] },
    ]);
    expect(refused.body.error.message).toBe(`segment ${segmentId} triggers campaigns ${onEntry}, ${scheduled}; end them or change their trigger first`);
    // Another app's key sees no such segment: 404 before any campaign is named.
    expect((await call('DELETE', `/v1/segments/${segmentId}`, OTHER_API_KEY)).status).toBe(404);
    expect((await call('GET', `/v1/segments/${segmentId}`, API_KEY)).status).toBe(200);

    expect((await call('POST', `/v1/campaigns/${onEntry}/end`, API_KEY)).body.state).toBe('ended');
    const still = await call('DELETE', `/v1/segments/${segmentId}`, API_KEY);
    expect([still.status, still.body.error.details]).toEqual([409, { campaign_ids: [scheduled] }]);
    expect(still.body.error.message).toBe(`segment ${segmentId} triggers campaign ${scheduled}; end it or change its trigger first`);
    expect((await call('POST', `/v1/campaigns/${scheduled}/end`, API_KEY)).body.state).toBe('ended');
    const deleted = await fetch(`${pipeline.baseUrl}/v1/segments/${segmentId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${API_KEY}` } });
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/v1/segments/${segmentId}`, API_KEY)).status).toBe(404);
  });
});
