import {
  CRASH_PAYLOAD_KIND,
  DIMENSIONS_PAYLOAD_KIND,
  LOG_PAYLOAD_KIND,
  catalogKindOfPayload,
  fromRawHeaders,
  rawHeaders,
  type RawHeaderFields,
} from '@evp/contract';
import { errorMessage, type BusMessage } from '@evp/core';
import {
  catalogUploadClient,
  normalizeCatalog,
  normalizeCrashUpload,
  normalizeDimensions,
  normalizeUpload,
  userCatalogFromIdentify,
  type AcceptedCatalogRecord,
  type AcceptedEvent,
  type NormalizeOptions,
  type Reason,
  type Rejection,
} from '@evp/schemas';
import type { PrivacyTally } from './privacy';

/**
 * What became of one raw message: the validator's one result shape, from the normaliser to the
 * produce (PostHog's per-event PipelineResult, here per raw message, since one upload holds many
 * events). Every event or record it held is either accepted (an output) or covered by a rejection
 * with reasons; where it came from is what its headers say. `E` is what an accepted event is at each
 * step: the normaliser's value, then framed (raw-batch-processor.ts). Retrying is no outcome of a message:
 * only infrastructure needs it (a worker that died), and that is a retriable InfraError for the
 * whole batch, as everywhere else.
 */
export interface MessageOutcome<E> extends RawHeaderFields {
  events: E[];
  /**
   * Catalog records to write: the accepted records of a `catalog:<kind>` submission, or for `log`
   * messages the user records derived from identify events that carry user properties.
   */
  catalog: AcceptedCatalogRecord[];
  rejections: Rejection[];
  /**
   * Why an identify event's user properties made no catalog record (the event itself is accepted):
   * logged. The warnings of accepted events and records travel with them, not here.
   */
  identifyReasons: Reason[];
  /** What the app's privacy policy did to the fields of this message's events and records (set by the encoder; absent when it did nothing). */
  privacyFields?: PrivacyTally;
}

/**
 * One raw message → canonical events or catalog records, and rejections. Pure: no I/O, never throws,
 * so a poison message can never stall the partition; what cannot be read becomes a parse_violation
 * with the raw bytes, an event nested deeper than MAX_JSON_DEPTH a size_violation (rule max_depth),
 * and anything unexpected a parse_violation (rule processing_error) for the whole message. The `payload_kind` header decides the reader: `log` (the default, for messages
 * of gateways older than the header) → envelopes; `catalog:<kind>` → a catalog submission;
 * `dimensions` → a dimensions upload (records of several kinds, `POST /v1/ingest/dimensions`); `crash` →
 * an SDK crash upload, whose items become exception events.
 */
export function processRawMessage(msg: RawMessage, options: NormalizeOptions): MessageOutcome<AcceptedEvent> {
  try {
    return processUnguarded(msg, options);
  } catch (err) {
    return processingFailure(msg, err);
  }
}

/**
 * The last line of defence: a bug or an input the bounds missed must not stall the partition. The
 * whole message becomes one typed rejection that keeps its bytes for replay.
 */
export function processingFailure(msg: RawMessage, err: unknown): MessageOutcome<never> {
  return parseViolation(
    msg,
    [{ path: '$', rule: 'processing_error', message: `the validator could not process this message: ${errorMessage(err)}` }],
    submittedCount(msg),
  );
}

/**
 * How many events or records the message holds, so that `events in = accepted + Σ rejected.event_count`
 * still adds up when the whole message is rejected: the data items of each envelope (at least one per
 * envelope, as envelope rejections count), or the records of a catalog array. Only shallow reads of a
 * body that already parsed once; anything unreadable counts as one.
 */
function submittedCount(msg: RawMessage): number {
  try {
    const body: unknown = JSON.parse(msg.value.toString('utf8'));
    const kind = msg.headers[rawHeaders.payloadKind] ?? LOG_PAYLOAD_KIND;
    if (kind === DIMENSIONS_PAYLOAD_KIND) {
      const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
      return Array.isArray(data) ? Math.max(data.length, 1) : 1;
    }
    if (kind !== LOG_PAYLOAD_KIND && kind !== CRASH_PAYLOAD_KIND) return Array.isArray(body) ? Math.max(body.length, 1) : 1;
    let n = 0;
    for (const env of Array.isArray(body) ? body : [body]) {
      const data = typeof env === 'object' && env !== null ? (env as { data?: unknown }).data : undefined;
      n += Array.isArray(data) ? Math.max(data.length, 1) : 1;
    }
    return Math.max(n, 1);
  } catch {
    return 1;
  }
}

type RawMessage = Pick<BusMessage, 'value' | 'headers' | 'timestamp'>;

/** What the gateway's headers say of the message (@evp/contract). */
function contextOf(msg: RawMessage): RawHeaderFields {
  return fromRawHeaders(msg.headers, msg.timestamp);
}

function parseViolation(msg: RawMessage, reasons: Reason[], eventCount = 1): MessageOutcome<never> {
  return {
    events: [],
    catalog: [],
    rejections: [
      {
        kind: 'parse_violation',
        reasons,
        payload: msg.value.toString('utf8'),
        event_count: eventCount,
        envelope_index: null,
        event_index: null,
        event_name: null,
      },
    ],
    identifyReasons: [],
    ...contextOf(msg),
  };
}

function processUnguarded(msg: RawMessage, options: NormalizeOptions): MessageOutcome<AcceptedEvent> {
  const { ctx: headerCtx, payloadKind, envelope, client, userToken } = contextOf(msg);
  // The user token's per-event rule travels in the context the normalisers read (user-token.ts).
  const ctx = userToken === undefined ? headerCtx : { ...headerCtx, userToken };
  if (!ctx.appId) return parseViolation(msg, [{ path: `headers.${rawHeaders.appId}`, rule: 'required', message: 'raw message has no app id header' }]);
  const catalogKind = catalogKindOfPayload(payloadKind);
  const dimensions = payloadKind === DIMENSIONS_PAYLOAD_KIND;
  if (payloadKind !== LOG_PAYLOAD_KIND && payloadKind !== CRASH_PAYLOAD_KIND && catalogKind === undefined && !dimensions) {
    return parseViolation(msg, [
      {
        path: `headers.${rawHeaders.payloadKind}`,
        rule: 'unsupported_payload_kind',
        message: `payload kind ${payloadKind} is not log, ${CRASH_PAYLOAD_KIND}, ${DIMENSIONS_PAYLOAD_KIND} or catalog:<kind>`,
      },
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(msg.value.toString('utf8'));
  } catch (err) {
    return parseViolation(msg, [{ path: '$', rule: 'json', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  if (catalogKind !== undefined || dimensions) {
    // Unknown kinds come back from normalizeCatalog as one parse_violation (rule unknown_catalog_kind);
    // a dimensions upload (Kenkai: records of every kind in one body) is split into records by their `type`.
    // Catalog bodies carry no sdk string: the client is what the request said (raw headers), and its
    // quirks are gated by it as an envelope's are by its sdk.
    const sender = catalogUploadClient(dimensions, client);
    const result = dimensions ? normalizeDimensions(body, ctx, options, sender) : normalizeCatalog(catalogKind as string, body, ctx, options, sender);
    return {
      events: [],
      catalog: result.accepted,
      rejections: result.rejected,
      identifyReasons: [],
      ctx,
      payloadKind,
      envelope,
    };
  }
  if (payloadKind === CRASH_PAYLOAD_KIND) {
    const crash = normalizeCrashUpload(body, ctx, options);
    return {
      events: crash.accepted,
      catalog: [],
      rejections: crash.rejected,
      identifyReasons: [],
      ctx,
      payloadKind,
      envelope,
    };
  }
  const result = normalizeUpload(body, ctx, options);
  // Identify (register/login) events carrying user properties also update the user catalog
  // (spec 2.4, 4.3). Derived records are extra outputs, not submissions: they never count in
  // `events in = accepted + rejected`, and one that cannot be made is a warning, not a rejection.
  const fromIdentify = result.accepted.map((a) => userCatalogFromIdentify(a.event));
  return {
    events: result.accepted,
    catalog: fromIdentify.flatMap((d) => (d.accepted ? [d.accepted] : [])),
    rejections: result.rejected,
    identifyReasons: fromIdentify.flatMap((d) => d.reasons),
    ctx,
    payloadKind,
    envelope,
  };
}
