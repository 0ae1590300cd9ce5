import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import {
  DEFAULT_RETENTION,
  UnreadableMessageError,
  accepted,
  consumerPart,
  createInMemoryLeaseStore,
  errorMessage,
  isRetriable,
  leaseTtlMs,
  leasedTurns,
  rejected,
  type Analytics,
  type AppRetention,
  type ConsumerDeps,
  type BusMessage,
  type LeaseStore,
  type MessageBatch,
  type Outcome,
  type SchemaRegistry,
  type SubscriptionHealth,
  type SuppressionSet,
} from '@evp/core';
import { readMembershipChange, type MembershipChange } from '@evp/schemas';
import type { InsertedRow } from '../sink';
import { actionMessages, planDeliveries, type Delivery } from './deliver';
import { matchingEvents, memberPage } from './loaders';
import { writeOutcomes } from './outcomes';
import { RateLimiter } from './rate-limit';
import type { CampaignSettings, CampaignSource, SplitChange, StoredCampaign } from './source';
import { adaptCampaign } from './adapt';
import type { TemplateEngine } from './templates';
import { readTriggerItem, triggerMessage, type TriggerItem } from './trigger-items';
import { eventItems, triggerEventName } from './triggers/event';
import { entryItems } from './triggers/segment-entry';
import { runInvId } from './ids';
import { createCampaignWorkerMetrics } from '../metrics';
import { dueOccurrences, liveAt, splitTriggerBatch, type UsersItem } from './trigger-batch';
import { CAMPAIGN_WORKER_NAME, CAMPAIGN_WORKER_OPTIONS, type CampaignWorkerConfig } from './options';

export type { CampaignWorkerConfig };

/** `now`: the instant of triggers and liveness checks. */
export interface CampaignWorkerDeps extends ConsumerDeps<CampaignWorkerConfig> {
  analytics: Analytics;
  registry: SchemaRegistry;
  campaigns: CampaignSource;
  templates: TemplateEngine;
  metrics?: Registry;
  /** Run keys of API triggers. Default: random UUIDs. */
  newId?: () => string;
  /** Each app's retention (the keys ring's): outcome rows carry the `history` days. Default: DEFAULT_RETENTION. */
  retention?: (appId: string) => AppRetention;
  /** Suppressed (erased) users: skipped by every run. Absent: none is. */
  suppressions?: SuppressionSet;
  /**
   * Where the allocation timer's lease is held (`campaigns.adapt`): the replicas' shared one (Redis)
   * makes one replica at a time move the weights. Default: this worker's own, in memory.
   */
  lease?: LeaseStore;
}

/** The allocation timer's lease: one name in every replica. */
const ADAPT_LEASE = 'campaigns.adapt';

export interface CampaignWorker {
  /** The sink's hook: trigger items for the stored events of active event-trigger campaigns. */
  onInserted(rows: InsertedRow[]): Promise<void>;
  /** `POST /v1/campaigns/{id}/trigger`: one run for these users; resolves once the bus has the item. */
  triggerApi(appId: string, campaign: StoredCampaign, userIds: string[]): Promise<{ inv_id: number; users: number }>;
  /** Produces the due schedule occurrences now (what the timer does). */
  scheduleDue(): Promise<void>;
  /** Reloads the active campaigns the producers match against. */
  refresh(): Promise<void>;
  /**
   * Moves the weights of the adaptive campaigns whose epoch is over (what the allocation timer does),
   * if this replica holds (or takes) the allocation lease; the epochs appended (none when another
   * replica holds it). A lease store that fails throws, with nothing moved.
   */
  adapt(): Promise<SplitChange[]>;
  /**
   * Loads the active campaigns and starts their refresh, so that the producers (`onInserted`,
   * `triggerApi`) work; with `consume` (default true) also joins the trigger and entry groups and
   * starts the schedule timer: a replica without the `campaigns` part only produces.
   */
  start(options?: { consume?: boolean }): Promise<void>;
  stop(): Promise<void>;
  health(): SubscriptionHealth;
  readonly metrics: Registry;
}

/** What one trigger item came to: its users' outcome counts, or why it was not acted on. */
type UserCounts = { requested: number; control: number; skipped: number };
type ItemResult = Outcome<UserCounts>;

/**
 * The campaign worker (docs/campaigns.md, "Triggers and delivery"): trigger producers (segment
 * entries from `segments.membership`, events from the sink's hook, schedule occurrences from a
 * timer, API calls) write items to `campaigns.triggers`; its consumer group acts on them: per batch
 * of users, the outcome rows are written to ClickHouse, then the actions produced to
 * `actions.requested`, then the offsets committed. Every id is derived (ids.ts), so a redelivered
 * item writes the same rows and requests the same actions, which the action store turns into duplicates.
 */
export function createCampaignWorker(deps: CampaignWorkerDeps): CampaignWorker {
  const { config, now, life } = consumerPart(CAMPAIGN_WORKER_NAME, CAMPAIGN_WORKER_OPTIONS, deps);
  const newId = deps.newId ?? randomUUID;
  const { logger } = life;
  const metricRegistry = deps.metrics ?? new Registry();
  const { itemsTotal, usersTotal, producedTotal, suppressedTotal } = createCampaignWorkerMetrics(metricRegistry);
  const limiter = new RateLimiter();
  let active: StoredCampaign[] = [];
  /** Schedule occurrences this process produced, by `app:campaign` → run_at. */
  const produced = new Map<string, number>();

  async function produce(items: TriggerItem[], source: string): Promise<void> {
    if (items.length === 0) return;
    await life.producer().send(config.triggersTopic, items.map(triggerMessage));
    producedTotal.inc({ source }, items.length);
  }

  const activeOf = (appId: string) => active.filter((c) => c.app_id === appId);

  const live = (c: StoredCampaign, atMs: number) => liveAt(c, atMs, now());

  /** One item → the deliveries it stands for, in batches of at most usersPerBatch. */
  async function* deliveries(c: StoredCampaign, item: TriggerItem): AsyncGenerator<Delivery[]> {
    const trigger = c.document.trigger;
    if (item.kind === 'schedule') {
      if (!('schedule' in trigger)) return;
      const run_key = `schedule:${item.run_at}`;
      let after = '';
      for (;;) {
        const page = await memberPage(deps.analytics, c.app_id, trigger.segment, after, config.usersPerBatch);
        if (page.length > 0) yield page.map((user_id) => ({ user_id, run_key, at: item.run_at, trigger: 'schedule' }));
        if (page.length < config.usersPerBatch) return;
        after = page[page.length - 1] as string;
      }
    }
    for (let i = 0; i < item.users.length; i += config.usersPerBatch) {
      const users = item.users.slice(i, i + config.usersPerBatch);
      if (item.trigger !== 'event') {
        yield users.map((u) => ({ user_id: u.user_id, run_key: item.run_key, at: item.at, trigger: item.trigger }));
        continue;
      }
      if (!('event' in trigger)) continue;
      const ids = users.flatMap((u) => (u.event_id === undefined ? [] : [u.event_id]));
      const matched = await matchingEvents(deps.analytics, c.app_id, trigger.event, ids);
      // Each event is its own trigger: one from before start_at (or after end_at) is not acted on.
      const events = matched.filter((e) => live(c, e.time));
      const name = triggerEventName(c) as string;
      yield events.map((e) => ({ user_id: e.user_id, run_key: `event:${e.event_id}`, at: e.time, trigger: 'event', event: { name, props: e.props } }));
    }
  }

  /**
   * Acts on deliveries of a live campaign: per batch of at most usersPerBatch users, the outcome
   * rows are written, then the actions produced. Adds the batch's outcome counts to `counts`.
   */
  async function act(c: StoredCampaign, settings: CampaignSettings, all: readonly Delivery[], counts: UserCounts): Promise<void> {
    // A suppressed (erased) person is skipped outright: no outcome row (which would store them
    // again) and no action (docs/privacy.md).
    const set = deps.suppressions;
    const batch = set ? all.filter((d) => !set.has(c.app_id, 'user', d.user_id)) : all;
    if (batch.length < all.length) suppressedTotal.inc(all.length - batch.length);
    for (let i = 0; i < batch.length; i += config.usersPerBatch) {
      const part = batch.slice(i, i + config.usersPerBatch);
      const plan = await planDeliveries({ analytics: deps.analytics, templates: deps.templates }, c, settings, part);
      // The record of what the run did comes first: a crash after it and before the actions leaves
      // rows whose actions the redelivered item requests again (same ids), never actions without rows.
      await writeOutcomes(deps.analytics, c.app_id, plan.outcomes, (deps.retention?.(c.app_id) ?? DEFAULT_RETENTION).history, now());
      for (const m of actionMessages(c.app_id, c.id, plan.actions)) {
        await limiter.take(`${c.app_id}:${c.id}`, c.document.rate_per_second, m.actions);
        await life.producer().send(config.actionsTopic, [m.message]);
      }
      for (const o of plan.outcomes) counts[o.outcome] += 1;
    }
  }

  /** Why an item of campaign `c` (undefined: gone) is not acted on at `at`, or undefined if it is. */
  function notActedOn(item: TriggerItem, c: StoredCampaign | undefined, at: number): ItemResult | undefined {
    if (!c) return rejected([{ path: '$.campaign_id', rule: 'unknown_campaign', message: `no campaign ${item.campaign_id} in app ${item.app_id}` }]);
    if (!live(c, at)) return rejected([{ path: '$.campaign_id', rule: 'not_live', message: `campaign ${c.id} is ${c.state} or outside its start_at/end_at` }]);
    return undefined;
  }

  async function handleItem(item: TriggerItem): Promise<ItemResult> {
    const c = await deps.campaigns.get(item.app_id, item.campaign_id);
    const refused = notActedOn(item, c, item.kind === 'schedule' ? item.run_at : item.at);
    if (refused || !c) return refused as ItemResult;
    const settings = await deps.campaigns.settings(c.app_id);
    const counts = { requested: 0, control: 0, skipped: 0 };
    for await (const batch of deliveries(c, item)) if (batch.length > 0) await act(c, settings, batch, counts);
    return accepted(counts);
  }

  /**
   * The `users` items of one campaign in a batch whose users are named outright (segment entries,
   * API calls: one item per entry, so one user each at the rate users enter), acted on together:
   * the campaign and settings read once, and the users of every live item planned, rendered and
   * written in batches of usersPerBatch, as one item's users would be. Each user keeps its item's
   * run key and trigger time, so the rows and actions are those of acting on the items one by one.
   */
  async function handleUsersItems(items: UsersItem[]): Promise<ItemResult[]> {
    const first = items[0] as (typeof items)[number];
    const c = await deps.campaigns.get(first.app_id, first.campaign_id);
    const results: ItemResult[] = [];
    const batch: Delivery[] = [];
    const counts = { requested: 0, control: 0, skipped: 0 };
    for (const item of items) {
      const refused = notActedOn(item, c, item.at);
      results.push(refused ?? accepted(counts));
      if (!refused) for (const u of item.users) batch.push({ user_id: u.user_id, run_key: item.run_key, at: item.at, trigger: item.trigger });
    }
    if (c && batch.length > 0) await act(c, await deps.campaigns.settings(c.app_id), batch, counts);
    return results;
  }

  async function handleBatch(batch: MessageBatch): Promise<void> {
    // A message that is no item throws non-retriable: the bus dead-letters it (consumer-guard).
    const items = batch.messages.map(readTriggerItem);
    const { single, byCampaign } = splitTriggerBatch(items);
    const results: { item: TriggerItem; result: ItemResult }[] = [];
    for (const item of single) results.push({ item, result: await handleItem(item) });
    for (const group of byCampaign) {
      const groupResults = await handleUsersItems(group);
      group.forEach((item, i) => results.push({ item, result: groupResults[i] as ItemResult }));
    }
    // Counted once the whole batch is done (a failed batch is delivered again and counted then);
    // the accepted items of one group share one count object, so users are counted once per object.
    const counted = new Set<object>();
    for (const { item, result } of results) {
      if (result.kind === 'rejected') logger.info({ app_id: item.app_id, campaign_id: item.campaign_id, reasons: result.reasons }, 'trigger not acted on');
      itemsTotal.inc({ kind: item.kind, outcome: result.kind });
      if (result.kind !== 'accepted' || counted.has(result.value)) continue;
      counted.add(result.value);
      for (const [outcome, n] of Object.entries(result.value)) if (n > 0) usersTotal.inc({ outcome }, n);
    }
  }

  async function handleMembership(batch: MessageBatch): Promise<void> {
    const items: TriggerItem[] = [];
    for (const m of batch.messages) {
      const record = await readMembershipMessage(deps.registry, m);
      items.push(...entryItems(record, activeOf(record.app_id)));
    }
    await produce(items, 'segment_entry');
  }

  async function scheduleDue(): Promise<void> {
    const items = dueOccurrences(active, now(), config.scheduleCatchUpMs, produced);
    await produce(items, 'schedule');
    for (const i of items) if (i.kind === 'schedule') produced.set(`${i.app_id}:${i.campaign_id}`, i.run_at);
  }

  async function refresh(): Promise<void> {
    active = await deps.campaigns.active();
  }

  // Every replica's timer fires on the same instants; the lease's holder alone runs the turn and keeps
  // the lease to the next one (leaseTtlMs: twice the period). A holder that comes back from a pause
  // longer than that may find that another appended the epoch meanwhile: appendSplit then skips it.
  const adaptTurns = leasedTurns({
    lease: deps.lease ?? createInMemoryLeaseStore(),
    name: ADAPT_LEASE,
    ttlMs: leaseTtlMs(config.adaptIntervalMs),
    logger,
  });

  /**
   * The adaptive campaigns' epochs: the list is read afresh (a campaign whose epoch was just appended
   * must not be seen with its old one, or it would move twice), then each is stepped in turn.
   */
  async function adaptTurn(): Promise<SplitChange[]> {
    await refresh();
    const appended: SplitChange[] = [];
    for (const c of active.filter((a) => a.document.adaptive !== undefined)) {
      const split = await adaptCampaign({ analytics: deps.analytics, campaigns: deps.campaigns, logger }, c, now());
      if (!split) continue;
      appended.push(split);
      logger.info({ app_id: c.app_id, campaign_id: c.id, weights: split.weights }, 'adaptive campaign weights moved');
    }
    if (appended.length > 0) await refresh();
    return appended;
  }

  async function adapt(): Promise<SplitChange[]> {
    const turn = await adaptTurns.run(adaptTurn);
    return turn.ran ? turn.value : [];
  }

  return {
    metrics: metricRegistry,
    onInserted: (rows) => produce(eventItems(rows, activeOf, config.usersPerItem, now()), 'event'),
    async triggerApi(appId, campaign, userIds) {
      const run_key = `api:${newId()}`;
      const users = [...new Set(userIds)];
      await produce(
        [{ kind: 'users', app_id: appId, campaign_id: campaign.id, run_key, trigger: 'api', at: now(), users: users.map((user_id) => ({ user_id })) }],
        'api',
      );
      return { inv_id: runInvId(appId, campaign.id, run_key), users: users.length };
    },
    scheduleDue,
    refresh,
    adapt,
    health: () => life.health(),
    async start({ consume = true } = {}) {
      if (!(await life.open())) return;
      await refresh();
      life.every(config.refreshIntervalMs, 'campaign list refresh', refresh);
      if (!consume) {
        logger.info('campaign worker producing triggers only (no trigger consumer on this replica)');
        return;
      }
      await life.consume({ groupId: config.groupId, topics: [config.triggersTopic], fromBeginning: true, concurrency: config.concurrency, handleBatch });
      await life.consume({
        groupId: config.entryGroupId,
        topics: [config.membershipTopic],
        fromBeginning: config.entryFromBeginning,
        handleBatch: handleMembership,
      });
      life.every(config.scheduleIntervalMs, 'campaign schedule', scheduleDue);
      life.every(config.adaptIntervalMs, 'campaign allocation', async () => void (await adapt()));
      logger.info({ group: config.groupId, topic: config.triggersTopic }, 'campaign worker running');
    },
    async stop() {
      await life.stop();
      // The turn in hand has ended: another replica takes the allocation over at its next turn.
      await adaptTurns.release();
      logger.info('campaign worker stopped');
    },
  };
}

/**
 * A `segments.membership` message → its change, through the one reader derived from
 * MEMBERSHIP_FIELDS (no cast): a registry outage is retried; bytes that are no record, or a record
 * that is no change, are dead-lettered (UnreadableMessageError).
 */
async function readMembershipMessage(registry: SchemaRegistry, m: BusMessage): Promise<MembershipChange> {
  let decoded: unknown;
  try {
    decoded = await registry.decode(m.value);
  } catch (err) {
    if (isRetriable(err)) throw err;
    throw new UnreadableMessageError('unreadable', `not a membership record: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return readMembershipChange(decoded);
  } catch (err) {
    throw new UnreadableMessageError('invalid', `not a membership change: ${errorMessage(err)}`, { cause: err });
  }
}
