import { topics, type Bus, type SchemaRegistry } from '@evp/core';
import { waitFor } from '@evp/testkit';
import type { RunningPipeline } from '../pipeline';
import { API_KEY, SDK_KEY } from './scenario';
import { call } from './call';

/** The clock the pipeline's segment engine reads: real time plus what a test lets pass. */
export class TestClock {
  private offsetMs = 0;
  readonly now = () => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** Engine settings for the scenario: the schedule and the segment list refresh often, so time-driven exits show within seconds. */
export const SCENARIO_SEGMENT_CONFIG = { recomputeIntervalMs: 250, refreshIntervalMs: 100 };

interface Change {
  key: string | null;
  app_id: string;
  segment_id: string;
  user_id: string;
  change: string;
  version: number;
  seq: number;
}

const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/**
 * Segments end to end over HTTP (issue 13): a segment is created with the API key, events are
 * uploaded with the SDK key, the user enters — exactly one `entered` record on segments.membership —
 * and once the window has passed (the engine's injected clock moves on) the scheduled pass makes the
 * user exit — exactly one `exited` record. Shared by the embedded and the real-stack tests.
 */
export function defineSegmentScenario(get: () => { pipeline: RunningPipeline; bus: Bus; registry: SchemaRegistry; clock: TestClock }) {
  it('a user enters a segment through uploaded events and exits when the window passes, one membership record each', async () => {
    const { pipeline, bus, registry, clock } = get();
    const since = Date.now() - 1_000;
    const user = `seg-${Date.now().toString(36)}`;
    const created = await call(`${pipeline.baseUrl}/v1/segments`, API_KEY, 'POST', {
      name: 'two views of this run’s page in the last hour',
      // The path is this run's: on a shared broker the pipeline also reads earlier runs' events.
      definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: `/${user}` }], count: { gte: 2 }, within: 'PT1H' },
    });
    expect(created.status).toBe(201);
    const segmentId = created.body.id as string;

    const t = clock.now();
    const page = (i: number) => ({
      time: utc(t - 60_000 + i),
      __ol: true,
      name: 'page',
      property: 'Home',
      ctx: { path: `/${user}`, title: 'Home', duration: 1, render_time: 10 },
    });
    const envelope = {
      id: user,
      tz: '+00:00',
      internal: { s_id: `${user}_${t}_0`, sdk: 'web/1.0.0', a_id: 'e2e-app', a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
      data: [page(0), page(1)],
    };
    const upload = await call(`${pipeline.baseUrl}/v1/ingest/log`, SDK_KEY, 'POST', envelope);
    expect([upload.status, upload.body.accepted]).toEqual([200, 2]);

    const changes = async () => {
      const found: Change[] = [];
      const raw: { key: string | null; value: Buffer }[] = [];
      await bus.scan(topics.segmentsMembership, since, (m) => void raw.push({ key: m.key, value: m.value }));
      for (const m of raw) {
        const c = (await registry.decode(m.value)) as Omit<Change, 'key'>;
        if (c.segment_id === segmentId)
          found.push({ key: m.key, app_id: c.app_id, segment_id: c.segment_id, user_id: c.user_id, change: c.change, version: c.version, seq: Number(c.seq) });
      }
      return found;
    };
    const record = (change: string, seq: number) => ({
      key: `e2e-app:${user}`,
      app_id: 'e2e-app',
      segment_id: segmentId,
      user_id: user,
      change,
      version: 1,
      seq,
    });

    await waitFor(async () => (await changes()).length >= 1, { timeoutMs: 60_000, what: 'the entered record' });
    const members = await call(`${pipeline.baseUrl}/v1/segments/${segmentId}/members`, API_KEY, 'GET');
    expect(members.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([user]);

    clock.advance(2 * 3_600_000);
    await waitFor(async () => (await changes()).length >= 2, { timeoutMs: 60_000, what: 'the exited record' });
    // More scheduled passes run meanwhile; none emits anything more.
    await waitFor(async () => (await call(`${pipeline.baseUrl}/v1/segments/${segmentId}/members`, API_KEY, 'GET')).body.data.length === 0, {
      timeoutMs: 10_000,
      what: 'no members',
    });
    expect(await changes()).toEqual([record('entered', 1), record('exited', 2)]);
  });
}
