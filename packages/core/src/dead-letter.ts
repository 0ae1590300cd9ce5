import { sha256Hex } from './hash';
import { InfraError, errorMessage } from './errors';
import type { BusMessage, OutgoingMessage } from './ports/bus';

/**
 * The dead-letter envelope (topic `deadletters`), in the manner of Snowplow's bad rows: the message
 * a consumer could not handle, byte for byte (key and value unchanged, its own headers kept), plus
 * these headers saying where it was, who failed on it, how, and when. One table, one writer
 * (`deadLetterOf`), one reader (`readDeadLetter`); docs/reliability.md lists the same fields.
 *
 * Every envelope header starts with `dlq_`: replay strips exactly those (`replayOf`), so a message
 * goes back to its source topic with the headers it had, plus the replay headers below.
 */
export const DEAD_LETTER_HEADERS = {
  /** Derived from group, topic, partition, offset, key and value (deadLetterId): writing the same failure twice yields the same id. */
  id: 'dlq_id',
  sourceTopic: 'dlq_source_topic',
  sourcePartition: 'dlq_source_partition',
  sourceOffset: 'dlq_source_offset',
  /** `1` when the source message had a key (the dead letter's key), `0` when it had none. */
  sourceHasKey: 'dlq_source_has_key',
  group: 'dlq_group',
  errorKind: 'dlq_error_kind',
  errorMessage: 'dlq_error_message',
  /** `true`/`false`: whether a retry could succeed (always `false` today: retriable failures are retried, not dead-lettered). */
  errorRetriable: 'dlq_error_retriable',
  /** The component that failed on the message and its version (Snowplow's `processor`). */
  processor: 'dlq_processor',
  processorVersion: 'dlq_processor_version',
  /** ISO 8601 UTC with milliseconds. */
  failedAt: 'dlq_failed_at',
} as const;

const DEAD_LETTER_PREFIX = 'dlq_';

/**
 * Headers replay adds (they do not start with `dlq_`, so a replayed message that fails again keeps
 * them in its new dead letter and shows as a replay): the id of the dead letter it was replayed
 * from, and how many times its content has been replayed.
 */
export const REPLAY_HEADERS = { replayOf: 'replay_of', replayCount: 'replay_count' } as const;

/**
 * Why a message was dead-lettered:
 * - `unreadable`: its bytes are not what the topic carries (not JSON, not Avro of a known schema);
 * - `invalid`: it reads, but breaks the topic's contract (a missing field, a wrong type);
 * - `refused`: a dependency refused it for a reason no retry cures (ClickHouse refused its row);
 * - `failed`: the handler threw on it (a bug, or an error no retry cures).
 */
export const DEAD_LETTER_ERROR_KINDS = ['unreadable', 'invalid', 'refused', 'failed'] as const;
export type DeadLetterErrorKind = (typeof DEAD_LETTER_ERROR_KINDS)[number];

/** The component that writes a dead letter, as Snowplow's bad rows name it. */
export interface Processor {
  name: string;
  version: string;
}

/** The platform's version, shared by its components (every package is versioned together). */
export const PLATFORM_VERSION = '0.1.0';
export const processorOf = (name: string): Processor => ({ name, version: PLATFORM_VERSION });

/**
 * A message a consumer cannot read: thrown by a handler, it is never retried; the consumer guard
 * dead-letters the message with this kind and message (and the handler's other messages go on).
 */
export class UnreadableMessageError extends Error {
  readonly kind: 'unreadable' | 'invalid';
  constructor(kind: 'unreadable' | 'invalid', message: string, opts?: { cause?: unknown }) {
    super(message, opts?.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'UnreadableMessageError';
    this.kind = kind;
  }
}

export interface DeadLetterError {
  kind: DeadLetterErrorKind;
  message: string;
  retriable: boolean;
}

/** What an error that reached the guard says as a dead letter's error. */
export function deadLetterErrorOf(err: unknown): DeadLetterError {
  if (err instanceof UnreadableMessageError) return { kind: err.kind, message: err.message, retriable: false };
  if (err instanceof InfraError) return { kind: 'refused', message: err.message, retriable: err.retriable };
  return { kind: 'failed', message: errorMessage(err), retriable: false };
}

/** Enough of an error message to diagnose, not enough to turn a dead letter into a big one. */
const MAX_ERROR_CHARS = 2_000;

/** The envelope as read back: the source message's coordinates, the failure, and the message itself. */
export interface DeadLetter {
  id: string;
  source: { topic: string; partition: number; offset: string; key: string | null };
  group: string;
  error: DeadLetterError;
  processor: Processor;
  /** Epoch ms. */
  failedAt: number;
  /** The source message's value, byte for byte. */
  value: Buffer;
  /** The source message's own headers (without the envelope's). */
  headers: Record<string, string>;
  /** Set on a replayed message that failed again: the dead letter it was replayed from, and how often. */
  replay: { of: string; count: number } | null;
}

/**
 * Group, coordinates and content: writing the same failure twice yields the same id, and a new
 * message at an offset that restarted (npm start on a kept chdb directory) is not taken for an old one.
 */
export const deadLetterId = (group: string, msg: Pick<BusMessage, 'topic' | 'partition' | 'offset' | 'key' | 'value'>) =>
  sha256Hex(
    `${group}\u0000${msg.topic}\u0000${msg.partition}\u0000${msg.offset}\u0000${msg.key === null ? '\u0001' : msg.key}\u0000${sha256Hex(msg.value.toString('base64'))}`,
  ).slice(0, 32);

/**
 * The one writer of dead letters: the message unchanged (key, value, its own headers) plus the
 * envelope headers. Used by the consumer guard (every consumer) and by the sink for rows ClickHouse
 * refused; what it returns is sent to `topics.deadLetters` before the source offset is committed.
 */
export function deadLetterOf(msg: BusMessage, why: { group: string; error: DeadLetterError; processor: Processor; failedAt: number }): OutgoingMessage {
  const own: Record<string, string> = {};
  // A message that was itself a dead letter (a dead letter's consumer failing on it) keeps no stale envelope.
  for (const [k, v] of Object.entries(msg.headers)) if (!k.startsWith(DEAD_LETTER_PREFIX)) own[k] = v;
  const H = DEAD_LETTER_HEADERS;
  return {
    ...(msg.key === null ? {} : { key: msg.key }),
    value: msg.value,
    headers: {
      ...own,
      [H.id]: deadLetterId(why.group, msg),
      [H.sourceTopic]: msg.topic,
      [H.sourcePartition]: String(msg.partition),
      [H.sourceOffset]: msg.offset,
      [H.sourceHasKey]: msg.key === null ? '0' : '1',
      [H.group]: why.group,
      [H.errorKind]: why.error.kind,
      [H.errorMessage]: why.error.message.slice(0, MAX_ERROR_CHARS),
      [H.errorRetriable]: String(why.error.retriable),
      [H.processor]: why.processor.name,
      [H.processorVersion]: why.processor.version,
      [H.failedAt]: new Date(why.failedAt).toISOString(),
    },
  };
}

export type DeadLetterRead = { ok: true; letter: DeadLetter } | { ok: false; problem: string };

/** A message of `deadletters` → its envelope; a message without one (not written by deadLetterOf) says which header it lacks. */
export function readDeadLetter(msg: Pick<BusMessage, 'key' | 'value' | 'headers'>): DeadLetterRead {
  const h = msg.headers;
  const H = DEAD_LETTER_HEADERS;
  for (const name of [H.id, H.sourceTopic, H.sourcePartition, H.sourceOffset, H.group, H.errorKind, H.failedAt]) {
    if (h[name] === undefined || h[name] === '') return { ok: false, problem: `no ${name} header` };
  }
  const partition = Number(h[H.sourcePartition]);
  const failedAt = Date.parse(h[H.failedAt] as string);
  if (!Number.isInteger(partition) || partition < 0) return { ok: false, problem: `${H.sourcePartition} is not a partition: ${h[H.sourcePartition]}` };
  if (Number.isNaN(failedAt)) return { ok: false, problem: `${H.failedAt} is not a time: ${h[H.failedAt]}` };
  const kind = h[H.errorKind] as string;
  if (!(DEAD_LETTER_ERROR_KINDS as readonly string[]).includes(kind)) return { ok: false, problem: `${H.errorKind} is not a kind: ${kind}` };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (!k.startsWith(DEAD_LETTER_PREFIX)) headers[k] = v;
  const replayOf = h[REPLAY_HEADERS.replayOf];
  const replayCount = Number(h[REPLAY_HEADERS.replayCount] ?? '1');
  return {
    ok: true,
    letter: {
      id: h[H.id] as string,
      source: {
        topic: h[H.sourceTopic] as string,
        partition,
        offset: h[H.sourceOffset] as string,
        key: h[H.sourceHasKey] === '0' ? null : msg.key,
      },
      group: h[H.group] as string,
      error: { kind: kind as DeadLetterErrorKind, message: h[H.errorMessage] ?? '', retriable: h[H.errorRetriable] === 'true' },
      processor: { name: h[H.processor] ?? '', version: h[H.processorVersion] ?? '' },
      failedAt,
      value: msg.value,
      headers,
      replay: replayOf === undefined ? null : { of: replayOf, count: Number.isInteger(replayCount) && replayCount > 0 ? replayCount : 1 },
    },
  };
}

/**
 * A dead letter → the message to put back on its source topic: the original key and value, the
 * original headers, and the replay headers (the dead letter's id; the count one more than the
 * message's previous replays), so a replay that fails again is visible as one.
 */
export function replayOf(letter: DeadLetter): { topic: string; message: OutgoingMessage } {
  return {
    topic: letter.source.topic,
    message: {
      ...(letter.source.key === null ? {} : { key: letter.source.key }),
      value: letter.value,
      headers: {
        ...letter.headers,
        [REPLAY_HEADERS.replayOf]: letter.id,
        [REPLAY_HEADERS.replayCount]: String((letter.replay?.count ?? 0) + 1),
      },
    },
  };
}

/** Dead letters written through one bus, by source topic and group: what /metrics reports. */
export interface DeadLetterCount {
  sourceTopic: string;
  group: string;
  count: number;
}

/**
 * Counts the dead letters a bus's producers wrote (once `send` resolved, so only durable ones):
 * both adapters feed every message sent to `deadletters` through it, whoever wrote it.
 */
export function deadLetterTally() {
  const counts = new Map<string, DeadLetterCount>();
  return {
    record(messages: readonly OutgoingMessage[]) {
      for (const m of messages) {
        const sourceTopic = m.headers?.[DEAD_LETTER_HEADERS.sourceTopic] ?? '';
        const group = m.headers?.[DEAD_LETTER_HEADERS.group] ?? '';
        const k = `${sourceTopic}\u0000${group}`;
        const c = counts.get(k) ?? { sourceTopic, group, count: 0 };
        c.count += 1;
        counts.set(k, c);
      }
    },
    counts: (): DeadLetterCount[] => [...counts.values()].map((c) => ({ ...c })),
  };
}
