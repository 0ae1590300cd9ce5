import { Registry } from 'prom-client';
import { mayBeRowFault } from '@evp/clickhouse';
import {
  DEFAULT_RETENTION,
  InfraError,
  consumerPart,
  errorMessage,
  isRetriable,
  topics,
  type Analytics,
  type AppRetention,
  type ConsumerDeps,
  type BusMessage,
  type DeadLetterError,
  type MessageBatch,
  type OutgoingMessage,
  type SchemaRegistry,
  type SubscriptionHealth,
  type SuppressionSet,
} from '@evp/core';
import { InsertBatcher, type TableRows } from './batcher';
import { createSinkMetrics } from '../metrics';
import { SINK_NAME, SINK_OPTIONS, type SinkConfig } from './options';
import { SINK_TOPICS, readSinkMessage, sinkReadState, unreadableError, type InsertedRow, type RetentionOf, type UnreadableMessage } from './read';
import { STAMPED_ROW_BINARY } from './rows';

export interface SinkDeps extends ConsumerDeps<SinkConfig> {
  registry: SchemaRegistry;
  analytics: Analytics;
  metrics?: Registry;
  /**
   * Called with the events and catalog records of a handler call once all its rows are in
   * ClickHouse, before the handler returns: offsets are committed only after it resolves, so what
   * it starts (segment work items) is at-least-once. If it throws, the batch is delivered again.
   */
  onInserted?: (rows: InsertedRow[]) => Promise<void>;
  /**
   * Each app's retention (the keys ring's, which follows the keys file without a restart): read once
   * per app per batch and stamped on its rows. Default: DEFAULT_RETENTION for every app.
   */
  retention?: RetentionOf;
  /**
   * Suppressed (erased) people: rows of theirs still in flight (written before the gateway and the
   * validator learnt the suppression) are dropped, counted, never inserted. Absent: none is.
   */
  suppressions?: SuppressionSet;
}

export interface Sink {
  /** Subscribes; rows start flowing. */
  start(): Promise<void>;
  /** Stops consuming, inserts what is buffered (so the last batches commit), leaves the group. */
  stop(): Promise<void>;
  /** The consumer's state; `stopped` before start. */
  health(): SubscriptionHealth;
  readonly metrics: Registry;
}

const defaultRetentionOf: RetentionOf = () => DEFAULT_RETENTION;

/** Messages decoded between two turns of the event loop (≈ 5 ms of work). */
const YIELD_EVERY_MESSAGES = 250;

/**
 * The sink: events.*, catalog.* (catalog.custom: every app-defined kind), ingest.rejected,
 * ingest.receipts and actions.log → ClickHouse. Each message is decoded through the registry and mapped to one row; rows are inserted in batches and a handler call returns (so
 * the bus commits its offsets) only once its rows are in ClickHouse. A message that cannot be read is
 * dead-lettered in the one envelope (kind `unreadable` or `invalid`), never dropped and never a
 * row of `rejected` (which holds what apps sent); the dead letters of `deadletters` are stored in
 * `dead_letters`; a registry or ClickHouse outage throws a
 * retriable error, and the bus delivers the batch again after a back-off. A row ClickHouse refuses
 * for a reason no retry cures is isolated (the insert bisected), every other row is inserted, and
 * the refused row's message goes to `deadletters` with its provenance before anything is committed.
 */
export function createSink(deps: SinkDeps): Sink {
  const { config, now, life } = consumerPart(SINK_NAME, SINK_OPTIONS, deps);
  const { logger } = life;
  const metricRegistry = deps.metrics ?? new Registry();
  const m = createSinkMetrics(metricRegistry);
  const tracking = deps.onInserted !== undefined;
  // The RowBinary rows and the events transcoders of this sink (schema ids are its registry's).
  const readState = sinkReadState(deps.registry);
  let outageLogged = false;

  const batcher = new InsertBatcher<BusMessage>({
    maxRows: config.batchMaxRows,
    maxWaitMs: config.batchMaxWaitMs,
    idleFlushIntervalMs: config.batchMinIntervalMs,
    concurrency: config.busConcurrency,
    isRetriable,
    isRowFault: mayBeRowFault,
    deadLetter: async (refusedRows) => {
      // A dead letter whose row ClickHouse refuses stays where it is (listed and replayable by
      // `npm run deadletters`), logged and counted: writing it to deadletters again would loop.
      const refused = refusedRows.filter((r) => r.source.topic !== topics.deadLetters);
      for (const r of refusedRows) {
        if (r.source.topic !== topics.deadLetters) continue;
        m.deadLettersUnstored.inc();
        logger.error(
          { source: `${r.source.topic}/${r.source.partition}/${r.source.offset}`, err: r.err },
          'dead letter refused by ClickHouse: not stored (still on deadletters)',
        );
      }
      if (refused.length === 0) return;
      const messages = refused.map((r) =>
        life.deadLetter(r.source, config.groupId, { kind: 'refused', message: `insert into ${r.table}: ${errorMessage(r.err)}`, retriable: false }),
      );
      await life.writeDeadLetters(messages);
      for (const r of refused) {
        m.deadLettered.inc({ table: r.table });
        logger.error(
          { source: `${r.source.topic}/${r.source.partition}/${r.source.offset}`, table: r.table, err: r.err },
          'row refused by ClickHouse, message dead-lettered',
        );
      }
    },
    retry: { initialDelayMs: config.retryInitialDelayMs, maxDelayMs: config.retryMaxDelayMs, budgetMs: config.retryBudgetMs },
    now,
    insert: async (table, rows, dedupToken) => {
      try {
        // A table's rows are all RowBinary or all JSON (read.ts), as ROW_BINARY_TABLES says.
        const binary = STAMPED_ROW_BINARY.get(table);
        if (binary) await deps.analytics.insertRowBinary(table, { columns: binary.columns, types: binary.types, rows: rows as Buffer[] }, { dedupToken });
        else await deps.analytics.insert(table, rows, { dedupToken });
      } catch (err) {
        m.insertFailures.inc({ table, retriable: String(isRetriable(err)) });
        // A missing table or column, or missing rights, is no fault of the rows: the rows wait
        // (retried with back-off) for an operator instead of going to dead letters one by one.
        if (!isRetriable(err) && !mayBeRowFault(err)) {
          throw new InfraError('clickhouse', `insert into ${table} refused by its target: ${errorMessage(err)}`, { retriable: true, cause: err });
        }
        throw err;
      }
    },
    onRetry: ({ table, err, attempt, delayMs }) => {
      // One warning per outage, not one per attempt.
      if (!outageLogged) logger.warn({ err, table, delayMs }, `ClickHouse insert failed, retrying with back-off: ${errorMessage(err)}`);
      else logger.debug({ table, attempt, delayMs }, 'ClickHouse insert retry');
      outageLogged = true;
    },
    onInserted: ({ table, rows, durationMs }) => {
      if (outageLogged) logger.info({ table }, 'ClickHouse inserts succeed again');
      outageLogged = false;
      m.rowsInserted.inc({ table }, rows);
      m.insertDuration.observe({ table }, durationMs / 1000);
    },
  });

  /** Counted and logged once per message; the dead letter's error says which rule failed where. */
  function unreadable(msg: BusMessage, u: UnreadableMessage): DeadLetterError {
    m.unreadable.inc({ topic: msg.topic });
    logger.warn({ source: `${msg.topic}/${msg.partition}/${msg.offset}`, rule: u.rule, err: u.err }, 'unreadable message: dead-lettered');
    return unreadableError(u);
  }

  async function handleBatch(batch: MessageBatch): Promise<void> {
    if (batch.messages.length === 0) return;
    const started = now();
    const pending: Promise<void>[] = [];
    // received_at of every row, per table: observed once the rows are in (freshness).
    const received = new Map<string, number[]>();
    let tables = new Map<string, TableRows<BusMessage>>();
    const inserted: InsertedRow[] = [];
    const letters: OutgoingMessage[] = [];
    // One lookup per app per batch: a change of the keys file applies from the next batch on.
    const retentionByApp = new Map<string, AppRetention>();
    const retentionOf: RetentionOf = (appId) => {
      let r = retentionByApp.get(appId);
      if (r === undefined) retentionByApp.set(appId, (r = (deps.retention ?? defaultRetentionOf)(appId)));
      return r;
    };
    let sliceStart = 0;
    const handOver = (end: number) => {
      // A slice with more to come leaves at once, so its insert overlaps decoding the next.
      pending.push(batcher.add({ tables }, { flushNow: end < batch.messages.length }));
      tables = new Map();
      sliceStart = end;
    };
    for (let i = 0; i < batch.messages.length; i++) {
      // Decoding is synchronous work (awaits of a cached schema are microtasks): a turn of the event
      // loop now and then lets the process's other work (the segment engine's queries) go on.
      if (i > 0 && i % YIELD_EVERY_MESSAGES === 0) await new Promise((r) => setImmediate(r));
      const msg = batch.messages[i] as BusMessage;
      const r = await readSinkMessage(msg, readState, tracking, retentionOf);
      if ('unreadable' in r) {
        letters.push(life.deadLetter(msg, config.groupId, unreadable(msg, r.unreadable)));
        continue;
      }
      if (r.owner && deps.suppressions?.has(r.owner.appId, r.owner.kind, r.owner.id)) {
        m.suppressed.inc({ table: r.table });
        continue;
      }
      const t = tables.get(r.table) ?? { rows: [], keys: [], sources: [] };
      tables.set(r.table, t);
      t.rows.push(r.row);
      t.keys.push(r.key);
      t.sources.push(msg);
      const at = received.get(r.table) ?? [];
      received.set(r.table, at);
      at.push(r.receivedAtMs);
      if (r.inserted) inserted.push(r.inserted);
      if (i + 1 - sliceStart >= config.sliceRows && i + 1 < batch.messages.length) handOver(i + 1);
    }
    handOver(batch.messages.length);
    // Every slice must be inserted before the handler returns (and the bus commits); all are
    // awaited so no rejection is left unobserved, and the first failure is what the bus sees.
    const outcomes = await Promise.allSettled(pending);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    // Durable before the handler returns (and the bus commits past them); a failed write gives the batch back.
    await life.writeDeadLetters(letters);
    if (deps.onInserted && inserted.length > 0) await deps.onInserted(inserted);
    const done = now();
    m.batchDuration.observe((done - started) / 1000);
    for (const [table, ats] of received) {
      // One label lookup per table, not per row.
      const freshness = m.freshness.labels({ table });
      for (const at of ats) freshness.observe(Math.max(0, done - at) / 1000);
    }
  }

  return {
    metrics: metricRegistry,
    health: () => life.health(),
    async start() {
      if (!(await life.open())) return;
      await life.consume({ groupId: config.groupId, topics: SINK_TOPICS, fromBeginning: true, concurrency: config.busConcurrency, handleBatch });
      logger.info(
        { group: config.groupId, topics: SINK_TOPICS.length, batchMaxRows: config.batchMaxRows, batchMaxWaitMs: config.batchMaxWaitMs },
        'sink consuming',
      );
    },
    async stop() {
      // Draining while the consumer stops lets the in-flight handler's rows be inserted now instead of after the wait.
      await life.stop({ drain: () => batcher.drain() });
      logger.info('sink stopped');
    },
  };
}
