import { ApiError, type Analytics, type RejectionReason } from '@evp/core';

/** Filters of GET /v1/inspect/events and /v1/inspect/rejected (all optional). */
export interface InspectQuery {
  user_id?: string;
  request_id?: string;
  /** Canonical event name (rejections: the name that could be read). */
  name?: string;
  /** Only what was received strictly after this time (epoch ms). */
  since?: number;
  limit: number;
}

export const DEFAULT_INSPECT_LIMIT = 100;
export const MAX_INSPECT_LIMIT = 1000;
/** Longest value of a filter (user_id, request_id, name, since). */
export const MAX_FILTER_CHARS = 256;

function param(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_FILTER_CHARS) {
    throw new ApiError('invalid_request', { message: `${name} must be one non-empty value of at most ${MAX_FILTER_CHARS} characters`, path: `query.${name}` });
  }
  return v;
}

/** `since` as epoch ms or an RFC 3339 time; anything else is a 400 naming the parameter. */
function sinceParam(q: Record<string, unknown>): number | undefined {
  const v = param(q, 'since');
  if (v === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(v) ? Number(v) : /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw new ApiError('invalid_request', { message: 'since must be epoch milliseconds or an RFC 3339 time', path: 'query.since' });
  return ms;
}

export function parseInspectQuery(q: Record<string, unknown>): InspectQuery {
  const limitText = param(q, 'limit');
  const limit = limitText === undefined ? DEFAULT_INSPECT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INSPECT_LIMIT) {
    throw new ApiError('invalid_request', { message: `limit must be an integer from 1 to ${MAX_INSPECT_LIMIT}`, path: 'query.limit' });
  }
  const out: InspectQuery = { limit };
  const user = param(q, 'user_id');
  const request = param(q, 'request_id');
  const name = param(q, 'name');
  const since = sinceParam(q);
  if (user !== undefined) out.user_id = user;
  if (request !== undefined) out.request_id = request;
  if (name !== undefined) out.name = name;
  if (since !== undefined) out.since = since;
  return out;
}

/** A filter: its SQL clause, its bound parameter's name, and its value (the filter applies only when the value is given). */
type Filter = readonly [clause: string, param: string, value: unknown];

/** WHERE clause and parameters: always the key's app; every filter a bound parameter, never spliced. */
function whereOf(appId: string, limit: number, filters: readonly Filter[]): { sql: string; params: Record<string, unknown> } {
  const clauses = ['app_id = {app:String}'];
  const params: Record<string, unknown> = { app: appId, limit };
  for (const [clause, param, value] of filters) {
    if (value === undefined) continue;
    clauses.push(clause);
    params[param] = value;
  }
  return { sql: clauses.join(' AND '), params };
}

/** The filters of the events and rejections lists (`nameColumn`: where the event name is). */
const where = (appId: string, q: InspectQuery, nameColumn: string) =>
  whereOf(appId, q.limit, [
    ['user_id = {user:String}', 'user', q.user_id],
    ['request_id = {request:String}', 'request', q.request_id],
    [`${nameColumn} = {name:String}`, 'name', q.name],
    ['received_at > fromUnixTimestamp64Milli({since:Int64})', 'since', q.since],
  ]);

const iso = (ms: number) => new Date(ms).toISOString();

export interface InspectedEvent {
  event_id: string;
  user_id: string;
  name: string;
  sent_name: string | null;
  block: string;
  property: string | null;
  time: string;
  received_at: string;
  request_id: string;
  envelope: string;
  sdk: string;
  app_version: string;
  props: Record<string, unknown>;
  meta: unknown;
  warnings: RejectionReason[];
}

/** The app's newest events first, with their warnings. */
export async function inspectEvents(analytics: Analytics, appId: string, q: InspectQuery): Promise<InspectedEvent[]> {
  const w = where(appId, q, 'name');
  const rows = await analytics.query<{
    event_id: string;
    user_id: string;
    name: string;
    sent_name: string | null;
    block: string;
    property: string | null;
    time_ms: number;
    received_ms: number;
    request_id: string;
    envelope: string;
    sdk_name: string;
    sdk_version: string;
    app_version: string;
    props: Record<string, unknown>;
    meta: string | null;
    warnings: RejectionReason[];
  }>(
    `SELECT event_id, user_id, name, sent_name, block, property, toUnixTimestamp64Milli(time) AS time_ms,
            toUnixTimestamp64Milli(received_at) AS received_ms, request_id, envelope, sdk_name, sdk_version,
            app_version, props, meta, warnings
     FROM events FINAL WHERE ${w.sql}
     ORDER BY received_at DESC, time DESC, event_id LIMIT {limit:UInt32}`,
    w.params,
  );
  return rows.map((r) => ({
    event_id: r.event_id,
    user_id: r.user_id,
    name: r.name,
    sent_name: r.sent_name,
    block: r.block,
    property: r.property,
    time: iso(r.time_ms),
    received_at: iso(r.received_ms),
    request_id: r.request_id,
    envelope: r.envelope,
    sdk: r.sdk_name === '' ? '' : `${r.sdk_name}/${r.sdk_version}`,
    app_version: r.app_version,
    props: r.props,
    meta: r.meta === null ? null : (JSON.parse(r.meta) as unknown),
    warnings: r.warnings,
  }));
}

export interface InspectedRejection {
  rejection_id: string;
  kind: string;
  user_id: string | null;
  name: string | null;
  request_id: string;
  received_at: string;
  envelope_index: number | null;
  event_index: number | null;
  event_count: number;
  payload_kind: string;
  reasons: RejectionReason[];
  payload: string;
  payload_truncated: boolean;
}

/** The app's newest rejections first, with every reason and the payload as sent. */
export async function inspectRejected(analytics: Analytics, appId: string, q: InspectQuery): Promise<InspectedRejection[]> {
  const w = where(appId, q, 'event_name');
  const rows = await analytics.query<{
    rejection_id: string;
    kind: string;
    user_id: string | null;
    event_name: string | null;
    request_id: string;
    received_ms: number;
    envelope_index: number | null;
    event_index: number | null;
    event_count: number;
    payload_kind: string;
    errors: RejectionReason[];
    payload: string;
    payload_truncated: boolean;
  }>(
    `SELECT rejection_id, kind, user_id, event_name, request_id, toUnixTimestamp64Milli(received_at) AS received_ms,
            envelope_index, event_index, event_count, payload_kind, errors, payload, payload_truncated
     FROM rejected FINAL WHERE ${w.sql}
     ORDER BY received_at DESC, envelope_index DESC, event_index DESC, rejection_id LIMIT {limit:UInt32}`,
    w.params,
  );
  return rows.map((r) => ({
    rejection_id: r.rejection_id,
    kind: r.kind,
    user_id: r.user_id,
    name: r.event_name,
    request_id: r.request_id,
    received_at: iso(r.received_ms),
    envelope_index: r.envelope_index,
    event_index: r.event_index,
    event_count: r.event_count,
    payload_kind: r.payload_kind,
    reasons: r.errors,
    payload: r.payload,
    payload_truncated: r.payload_truncated,
  }));
}

/** Filters of GET /v1/inspect/deadletters (all optional). */
export interface DeadLetterQuery {
  source_topic?: string;
  /** Only what failed strictly after this time (epoch ms). */
  since?: number;
  limit: number;
}

export function parseDeadLetterQuery(q: Record<string, unknown>): DeadLetterQuery {
  const { limit, since } = parseInspectQuery({ ...(q.limit === undefined ? {} : { limit: q.limit }), ...(q.since === undefined ? {} : { since: q.since }) });
  const out: DeadLetterQuery = { limit };
  const topic = param(q, 'source_topic');
  if (topic !== undefined) out.source_topic = topic;
  if (since !== undefined) out.since = since;
  return out;
}

export interface InspectedDeadLetter {
  dead_letter_id: string;
  failed_at: string;
  source: { topic: string; partition: number; offset: string; key: string | null };
  group: string;
  error: { kind: string; message: string; retriable: boolean };
  processor: { name: string; version: string };
  replay: { of: string; count: number } | null;
  headers: Record<string, string>;
  payload: string;
  payload_encoding: string;
  payload_bytes: number;
  payload_truncated: boolean;
}

/**
 * The app's newest dead letters first: messages a consumer could not handle, in the one envelope
 * (docs/reliability.md). Those that name no app are not here (`npm run deadletters -- list`).
 */
export async function inspectDeadLetters(analytics: Analytics, appId: string, q: DeadLetterQuery): Promise<InspectedDeadLetter[]> {
  const { sql, params } = whereOf(appId, q.limit, [
    ['source_topic = {topic:String}', 'topic', q.source_topic],
    ['failed_at > fromUnixTimestamp64Milli({since:Int64})', 'since', q.since],
  ]);
  const rows = await analytics.query<{
    dead_letter_id: string;
    failed_ms: number;
    source_topic: string;
    source_partition: number;
    source_offset: string;
    source_key: string | null;
    consumer_group: string;
    error_kind: string;
    error_message: string;
    error_retriable: boolean;
    processor: string;
    processor_version: string;
    replay_of: string | null;
    replay_count: number;
    headers: Record<string, string>;
    payload: string;
    payload_encoding: string;
    payload_bytes: number;
    payload_truncated: boolean;
  }>(
    `SELECT dead_letter_id, toUnixTimestamp64Milli(failed_at) AS failed_ms, source_topic, source_partition, source_offset, source_key,
            consumer_group, error_kind, error_message, error_retriable, processor, processor_version, replay_of, replay_count,
            headers, payload, payload_encoding, payload_bytes, payload_truncated
     FROM dead_letters FINAL WHERE ${sql}
     ORDER BY failed_at DESC, dead_letter_id LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((r) => ({
    dead_letter_id: r.dead_letter_id,
    failed_at: iso(r.failed_ms),
    source: { topic: r.source_topic, partition: r.source_partition, offset: r.source_offset, key: r.source_key },
    group: r.consumer_group,
    error: { kind: r.error_kind, message: r.error_message, retriable: r.error_retriable },
    processor: { name: r.processor, version: r.processor_version },
    replay: r.replay_of === null ? null : { of: r.replay_of, count: r.replay_count },
    headers: r.headers,
    payload: r.payload,
    payload_encoding: r.payload_encoding,
    payload_bytes: r.payload_bytes,
    payload_truncated: r.payload_truncated,
  }));
}
