import { Registry } from 'prom-client';
import { JsonRow, mayBeRowFault, stringifyWellFormed } from '@evp/clickhouse';
import {
  BLOCKS,
  InfraError,
  createConsumerLifecycle,
  readDeadLetter,
  timerClock,
  withDefaults,
  CATALOG_KINDS,
  errorMessage,
  isRetriable,
  topics,
  type Analytics,
  type Bus,
  type BusMessage,
  type DeadLetterError,
  type CatalogKind,
  type Logger,
  type OutgoingMessage,
  type MessageBatch,
  type SchemaRegistry,
  type SubscriptionHealth,
} from '@evp/core';
import { RecordReadError, readActionLogEntry, readIngestReceipt } from '@evp/schemas';
import { InsertBatcher, type TableRows } from './batcher';
import { createSinkMetrics } from './metrics';
import { SINK_NAME, SINK_OPTIONS, type SinkConfig } from './options';
import {
  RowError,
  TABLES,
  VALUE_COLUMNS,
  actionLogRow,
  catalogRow,
  customCatalogRow,
  deadLetterRow,
  eventValuesFromAvro,
  receiptRow,
  rejectedRow,
} from './rows';

/**
 * What one stored row says about who did what: the segment engine's trigger (which segments may
 * have changed, for which users). Events carry app, user and canonical name; catalog records their
 * kind (and, for the `user` catalog, the user: the record's id). An event also carries its id, which
 * campaign event triggers name to read the event back (campaigns/triggers/event.ts).
 */
export interface InsertedRow {
  app_id: string;
  user_id?: string;
  name?: string;
  event_id?: string;
  catalog?: CatalogKind;
}

export interface SinkDeps {
  bus: Bus;
  registry: SchemaRegistry;
  analytics: Analytics;
  logger: Logger;
  config?: Partial<SinkConfig>;
  metrics?: Registry;
  now?: () => number;
  /** Called once if the consumer stops for good (see Subscription). */
  onDead?: (error: Error) => void;
  /**
   * Called with the events and catalog records of a handler call once all its rows are in
   * ClickHouse, before the handler returns: offsets are committed only after it resolves, so what
   * it starts (segment work items) is at-least-once. If it throws, the batch is delivered again.
   */
  onInserted?: (rows: InsertedRow[]) => Promise<void>;
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

/** Every topic the sink reads: one per block, one per catalog kind, the app-defined catalogs, the rejected records, the receipts and the action log. */
export const SINK_TOPICS: string[] = [
  ...BLOCKS.map((b) => topics.events(b)),
  ...CATALOG_KINDS.map((k) => topics.catalog(k)),
  topics.customCatalog,
  topics.rejected,
  topics.receipts,
  topics.actionsLog,
  topics.deadLetters,
];

/**
 * Every row is written as JSON text when its message is read, not when its insert starts: the
 * insert of one slice (ClickHouse's thread) then overlaps both the decoding and the serializing of
 * the next (the JS thread), and an insert only joins text. Same text as the client would write.
 */
const jsonRow = (row: object) => new JsonRow(stringifyWellFormed(row));

type Route =
  | { table: 'events' }
  | { table: 'rejected' }
  | { table: 'receipts' }
  | { table: 'actions_log' }
  | { table: 'catalog'; kind: CatalogKind }
  | { table: 'customCatalog' }
  | { table: 'dead_letters' };

const routes = new Map<string, Route>([
  ...BLOCKS.map((b) => [topics.events(b), { table: 'events' }] as [string, Route]),
  ...CATALOG_KINDS.map((k) => [topics.catalog(k), { table: 'catalog', kind: k }] as [string, Route]),
  [topics.customCatalog, { table: 'customCatalog' }],
  [topics.rejected, { table: 'rejected' }],
  [topics.receipts, { table: 'receipts' }],
  [topics.actionsLog, { table: 'actions_log' }],
  [topics.deadLetters, { table: 'dead_letters' }],
]);

interface Read {
  table: string;
  /** Serialized as it is read: the JS thread writes it while ClickHouse inserts the previous slice. */
  row: JsonRow;
  key: string;
  receivedAtMs: number;
  /** Set only when the sink has an onInserted hook (read from values the row is built from anyway). */
  inserted?: InsertedRow | undefined;
}

/** A message the sink cannot read: dead-lettered (never a row, never dropped) before its batch commits. */
interface Unreadable {
  unreadable: DeadLetterError;
}

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
  const config = withDefaults(SINK_OPTIONS, deps.config);
  const now = deps.now ?? Date.now;
  const life = createConsumerLifecycle({
    name: SINK_NAME,
    bus: deps.bus,
    logger: deps.logger,
    clock: timerClock(now),
    ...(deps.onDead ? { onDead: deps.onDead } : {}),
  });
  const { logger } = life;
  const metricRegistry = deps.metrics ?? new Registry();
  const m = createSinkMetrics(metricRegistry);
  const tracking = deps.onInserted !== undefined;
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
        const columns = VALUE_COLUMNS.get(table);
        await deps.analytics.insert(table, rows, columns ? { dedupToken, columns } : { dedupToken });
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

  // Defined once, not per message: a closure per message was a measurable cost in the sink's loop.
  // `avro_decode` and `record`: the bytes are no record of a known schema; the others: a record that
  // breaks its contract (`canonical`, `row`: a value ClickHouse cannot hold) or an envelope that is none.
  function unreadable(msg: BusMessage, rule: string, path: string, err: unknown): Unreadable {
    m.unreadable.inc({ topic: msg.topic });
    logger.warn({ source: `${msg.topic}/${msg.partition}/${msg.offset}`, rule, err }, 'unreadable message: dead-lettered');
    const kind = rule === 'avro_decode' || rule === 'record' ? 'unreadable' : 'invalid';
    return { unreadable: { kind, message: `${rule} at ${path}: ${errorMessage(err)}`, retriable: false } };
  }

  function readDeadLetterMessage(msg: BusMessage): Read | Unreadable {
    const r = readDeadLetter(msg);
    if (!r.ok) return unreadable(msg, 'dead_letter_envelope', '$.headers', new Error(r.problem));
    try {
      const row = deadLetterRow(r.letter);
      return { table: TABLES.deadLetters, row: jsonRow(row), key: row.dead_letter_id, receivedAtMs: r.letter.failedAt };
    } catch (err) {
      return err instanceof RowError ? unreadable(msg, 'row', `$.${err.path}`, err) : unreadable(msg, 'dead_letter_envelope', '$', err);
    }
  }

  async function read(msg: BusMessage): Promise<Read | Unreadable> {
    const route = routes.get(msg.topic);
    if (!route) throw new Error(`the sink does not read topic ${msg.topic}`);
    // A dead letter is its envelope's headers around the source message's bytes: never Avro.
    if (route.table === 'dead_letters') return readDeadLetterMessage(msg);
    let decoded: unknown;
    try {
      decoded = await deps.registry.decode(msg.value);
    } catch (err) {
      // The registry being unreachable says nothing about the message: give the batch back.
      if (isRetriable(err)) throw err;
      return unreadable(msg, 'avro_decode', '$', err);
    }
    if (decoded === null || typeof decoded !== 'object') return unreadable(msg, 'record', '$', new Error('not an Avro record'));
    const record = decoded as Record<string, unknown>;
    try {
      switch (route.table) {
        case 'events': {
          // Every value is checked as its row is written: the ids read from the record below are those of the row.
          const row = eventValuesFromAvro(record);
          return {
            table: TABLES.events,
            row: jsonRow(row),
            key: record.event_id as string,
            receivedAtMs: record.received_at as number,
            inserted: tracking
              ? { app_id: record.app_id as string, user_id: record.user_id as string, name: record.name as string, event_id: record.event_id as string }
              : undefined,
          };
        }
        case 'rejected': {
          const row = rejectedRow(record);
          return { table: TABLES.rejected, row: jsonRow(row), key: row.rejection_id, receivedAtMs: record.received_at as number };
        }
        case 'receipts': {
          const row = receiptRow(readIngestReceipt(record));
          return { table: TABLES.receipts, row: jsonRow(row), key: row.receipt_id, receivedAtMs: record.received_at as number };
        }
        case 'actions_log': {
          const row = actionLogRow(readActionLogEntry(record));
          return { table: TABLES.actionsLog, row: jsonRow(row), key: row.entry_id, receivedAtMs: record.at as number };
        }
        case 'catalog': {
          const row = catalogRow(record);
          return {
            table: TABLES.catalog(route.kind),
            row: jsonRow(row),
            key: `${row.app_id}\u0000${row.id}\u0000${row.received_at}`,
            receivedAtMs: record.received_at as number,
            // A user record's id is the user's id (spec 2.4).
            inserted: tracking ? { app_id: row.app_id, catalog: route.kind, ...(route.kind === 'user' ? { user_id: row.id } : {}) } : undefined,
          };
        }
        case 'customCatalog': {
          const row = customCatalogRow(record);
          return {
            table: TABLES.customCatalog,
            row: jsonRow(row),
            key: `${row.app_id}\u0000${row.kind}\u0000${row.id}\u0000${row.received_at}`,
            receivedAtMs: record.received_at as number,
          };
        }
      }
    } catch (err) {
      if (err instanceof RecordReadError) return unreadable(msg, 'contract', `$.${err.path}`, new Error(err.reason));
      return err instanceof RowError ? unreadable(msg, 'row', `$.${err.path}`, err) : unreadable(msg, 'canonical', '$', err);
    }
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
      const r = await read(msg);
      if ('unreadable' in r) {
        letters.push(life.deadLetter(msg, config.groupId, r.unreadable));
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
    const last = batch.messages[batch.messages.length - 1] as BusMessage;
    m.batchDuration.observe((done - started) / 1000);
    for (const [table, ats] of received) {
      // One label lookup per table, not per row.
      const freshness = m.freshness.labels({ table });
      for (const at of ats) freshness.observe(Math.max(0, done - at) / 1000);
    }
    const labels = { topic: batch.topic, partition: String(batch.partition) };
    m.lagSeconds.set(labels, Math.max(0, done - last.timestamp) / 1000);
    m.lagMessages.set(labels, Math.max(0, Number(batch.highWatermark) - Number(last.offset) - 1));
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
