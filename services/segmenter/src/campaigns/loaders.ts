import { CATALOG_KINDS, type Analytics, type CatalogKind } from '@evp/core';
import { CLIENT_FACT_NAMES, compileEventMatch, type Predicate } from '@evp/segment-language';
import type { CatalogLoader } from './templates';

/**
 * What the campaign worker reads from ClickHouse, in batches of users, every value a parameter:
 * the user data of templates and time zones, catalog records by id, a segment's current members,
 * and the events an event trigger names.
 */

/** Most ids one query names (keeps one parameter bounded). */
const IDS_PER_QUERY = 10_000;

function chunks<T>(list: readonly T[], size = IDS_PER_QUERY): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export interface UserFacts {
  /** The latest user catalog record (`record`), when there is one. */
  record?: Record<string, unknown>;
  /** The client facts of the user's latest event (os, tz, …), empty strings dropped. */
  facts?: Record<string, unknown>;
}

/**
 * Each user's latest user catalog record and the client facts of the latest event (ties on time
 * broken by event id, as the segment compiler reads client facts: packages/segment-language/src/compile/leaves.ts).
 */
export async function loadUserFacts(analytics: Analytics, appId: string, users: readonly string[]): Promise<Map<string, UserFacts>> {
  const out = new Map<string, UserFacts>();
  for (const some of chunks([...new Set(users)])) {
    const params = { app: appId, users: some };
    const records = await analytics.query<{ id: string; record: Record<string, unknown> }>(
      'SELECT id, record FROM catalog_user FINAL PREWHERE app_id = {app:String} AND id IN {users:Array(String)}',
      params,
    );
    for (const r of records) out.set(r.id, { record: r.record });
    const latest = CLIENT_FACT_NAMES.map((f) => `argMax(tuple(${f}), (time, event_id)).1 AS ${f}`).join(', ');
    const facts = await analytics.query<Record<string, unknown> & { user_id: string }>(
      `SELECT user_id, ${latest} FROM events PREWHERE app_id = {app:String} AND user_id IN {users:Array(String)} GROUP BY user_id`,
      params,
    );
    for (const { user_id, ...values } of facts) {
      const kept = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== null));
      out.set(user_id, { ...out.get(user_id), facts: kept });
    }
  }
  return out;
}

/** catalog.KIND[...] lookups of templates: the latest record of each id (templates.ts CatalogLoader). */
export function catalogLoader(analytics: Analytics, appId: string): CatalogLoader {
  return async (kind: CatalogKind, ids: string[]) => {
    // The kind is one of CATALOG_KINDS (the template scope has no other): a table name, never input text.
    if (!(CATALOG_KINDS as readonly string[]).includes(kind)) throw new Error(`not a catalog kind: ${kind}`);
    const out = new Map<string, Record<string, unknown>>();
    for (const some of chunks(ids)) {
      const rows = await analytics.query<{ id: string; record: Record<string, unknown> }>(
        `SELECT id, record FROM catalog_${kind} FINAL PREWHERE app_id = {app:String} AND id IN {ids:Array(String)}`,
        { app: appId, ids: some },
      );
      for (const r of rows) out.set(r.id, { ...r.record, id: r.id });
    }
    return out;
  };
}

/** One page of a segment's current members by user id, after `after` (`segment_members` FINAL). */
export async function memberPage(analytics: Analytics, appId: string, segmentId: string, after: string, limit: number): Promise<string[]> {
  const rows = await analytics.query<{ user_id: string }>(
    `SELECT user_id FROM segment_members FINAL
     WHERE app_id = {app:String} AND segment_id = {segment:String} AND is_member AND user_id > {after:String}
     ORDER BY user_id LIMIT {limit:UInt32}`,
    { app: appId, segment: segmentId, after, limit },
  );
  return rows.map((r) => r.user_id);
}

export interface MatchedEvent {
  event_id: string;
  user_id: string;
  /** Epoch ms. */
  time: number;
  props: Record<string, unknown>;
}

/**
 * The named events that match an event trigger (its event and `where`, compiled by the segment
 * language's compiler into parameters), with their properties; events that do not match are not
 * returned. FINAL: a duplicate of an event is one event.
 */
export async function matchingEvents(
  analytics: Analytics,
  appId: string,
  condition: { event: string; where?: Predicate[] },
  eventIds: readonly string[],
): Promise<MatchedEvent[]> {
  const match = compileEventMatch(condition.event, condition.where);
  const out: MatchedEvent[] = [];
  for (const some of chunks([...new Set(eventIds)])) {
    const rows = await analytics.query<{ event_id: string; user_id: string; time: number | string; props: Record<string, unknown> }>(
      `SELECT event_id, user_id, toUnixTimestamp64Milli(time) AS time, props FROM events FINAL
       PREWHERE app_id = {app_id:String} AND event_id IN {campaign_event_ids:Array(String)}
       WHERE ${match.sql}`,
      { ...match.params, app_id: appId, campaign_event_ids: some },
    );
    for (const r of rows) out.push({ event_id: r.event_id, user_id: r.user_id, time: Number(r.time), props: r.props });
  }
  return out;
}
