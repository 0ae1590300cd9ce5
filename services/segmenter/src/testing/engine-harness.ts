import { createLogger, type Analytics, type Bus, type Logger, type SchemaRegistry, type TimerClock } from '@evp/core';
import { eventDef, membershipHeaders, readMembershipChange, type CanonicalEvent } from '@evp/schemas';
import { eventRow } from '../sink';
import { pageEvent } from './fixtures';
import {
  createSegmentEngine,
  type MembershipChange,
  type SegmentEngine,
  type SegmentEngineConfig,
  type SegmentEngineDeps,
  type WorkItem,
  workMessage,
} from '../segments';
import { handCompile } from './hand-compiler';

/**
 * The segment engine over given adapters, for tests (the tests pass the embedded or the real ones;
 * this module imports neither, as it is not a test file itself), with an injected clock, the
 * hand-written compiler and helpers to wait for the work to be done and to read the topic back.
 */
export interface EngineHarness {
  readonly engine: SegmentEngine;
  /** Resolves once this engine consumed every work item produced since it started (by it or by `sendWork`). */
  settled(timeoutMs?: number): Promise<void>;
  /** A work item written to the work topic as any producer would. */
  sendWork(item: WorkItem): Promise<void>;
  stop(): Promise<void>;
}

export interface MembershipRecord {
  key: string | null;
  change_id: string | undefined;
  change: MembershipChange;
}

export interface EngineHarnessOptions {
  analytics: Analytics;
  bus: Bus;
  registry: SchemaRegistry;
  now: () => number;
  config?: Partial<SegmentEngineConfig>;
  compile?: SegmentEngineDeps['compile'];
  /** The clock of the engine's timers (a ManualClock the test moves). Default: the process's. */
  clock?: TimerClock;
  /** The apps and retention of the expiry of ended memberships; absent: none. */
  expiry?: SegmentEngineDeps['expiry'];
  logger?: Logger;
}

const logger = createLogger('segments-test', 'silent');

/** Timers off: tests drive the refresh and the schedule themselves. */
const TEST_ENGINE_CONFIG: Partial<SegmentEngineConfig> = { recomputeIntervalMs: 0, refreshIntervalMs: 0 };

const sum = async (engine: SegmentEngine, name: string) => {
  const metric = engine.metrics.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values.reduce((n, v) => n + v.value, 0);
};

export async function startEngine(opts: EngineHarnessOptions): Promise<EngineHarness> {
  const engine = createSegmentEngine({
    analytics: opts.analytics,
    bus: opts.bus,
    registry: opts.registry,
    logger: opts.logger ?? logger,
    compile: opts.compile ?? handCompile,
    now: opts.now,
    config: { ...TEST_ENGINE_CONFIG, ...opts.config },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.expiry ? { expiry: opts.expiry } : {}),
  });
  await engine.start();
  const workTopic = opts.config?.workTopic ?? 'segments.work';
  const producer = await opts.bus.producer();
  let sent = 0;
  return {
    engine,
    async settled(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const produced = (await sum(engine, 'segmenter_segments_work_produced_total')) + sent;
        const consumed = await sum(engine, 'segmenter_segments_work_items_total');
        if (consumed >= produced) return;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${consumed} of ${produced} work items consumed`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async sendWork(item) {
      await producer.send(workTopic, [workMessage(item)]);
      sent += 1;
    },
    async stop() {
      await producer.close();
      await engine.stop();
    },
  };
}

/** Every record of the membership topic, decoded, in log order per partition. */
export async function readMembership(bus: Bus, registry: SchemaRegistry, topic = 'segments.membership'): Promise<MembershipRecord[]> {
  const records: MembershipRecord[] = [];
  const messages: { key: string | null; headers: Record<string, string>; value: Buffer }[] = [];
  await bus.scan(topic, 0, (m) => void messages.push(m));
  for (const m of messages) {
    const change = readMembershipChange(await registry.decode(m.value));
    records.push({ key: m.key, change_id: m.headers[membershipHeaders.changeId], change });
  }
  return records;
}

/** An event of `name` by `user` at `time` (epoch ms), with an id of its own. */
let n = 0;
export const userEvent = (app: string, user: string, name: string, time: number): CanonicalEvent => ({
  ...pageEvent,
  event_id: `${app}-${user}-${name}-${time}-${n++}`,
  app_id: app,
  user_id: user,
  name,
  property: null,
  time,
  props: {},
});

/**
 * Stores events as the sink would (the same row mapping). Engine tests also use names outside the
 * data contract (the engine evaluates whatever ClickHouse holds; the language refuses such names
 * earlier): such an event is stored as a contract event's row with its own name and props.
 */
export const insertEvents = (analytics: Analytics, events: CanonicalEvent[]) =>
  analytics.insert(
    'events',
    events.map((e) => (eventDef(e.name) ? eventRow(e) : { ...eventRow({ ...e, name: pageEvent.name, props: pageEvent.props }), name: e.name, props: e.props })),
  );
