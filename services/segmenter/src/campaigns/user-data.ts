import { CATALOG_KINDS, type Analytics, type CatalogKind } from '@evp/core';
import { profileField, profileFieldNames } from '../segments/language/contract';
import type { CatalogLoader } from './templates';

/**
 * What a preview reads from ClickHouse to render one user's templates (template-data.ts): the
 * latest user catalog record, the client facts of the latest event, and catalog records by id.
 * Every value is a query parameter; table and column names come from the data contract only.
 */

/** The client facts (columns of `events`) the `user` scope holds: the segment language's profile fields of source `client`. */
const CLIENT_FACTS = profileFieldNames().filter((name) => profileField(name)?.source === 'client');

export interface UserData {
  /** The fields of the latest user catalog record; undefined when the user has none. */
  record?: Record<string, unknown>;
  /** The client facts of the user's latest event (ties on time broken by event id, as the segment compiler does); empty strings are no value. */
  facts?: Record<string, unknown>;
}

export async function loadUserData(analytics: Analytics, appId: string, userId: string): Promise<UserData> {
  const params = { app: appId, user: userId };
  const [records, facts] = await Promise.all([
    analytics.query<{ record: Record<string, unknown> }>('SELECT record FROM catalog_user FINAL WHERE app_id = {app:String} AND id = {user:String}', params),
    analytics.query<Record<string, unknown>>(
      `SELECT ${CLIENT_FACTS.map((f) => `argMax(tuple(${f}), (time, event_id)).1 AS ${f}`).join(', ')}
       FROM events WHERE app_id = {app:String} AND user_id = {user:String} HAVING count() > 0`,
      params,
    ),
  ]);
  const out: UserData = {};
  if (records[0]) out.record = records[0].record;
  if (facts[0]) out.facts = Object.fromEntries(Object.entries(facts[0]).filter(([, v]) => v !== '' && v !== null));
  return out;
}

/** catalog.KIND[ID] lookups: the latest record of each id of one app. */
export function catalogLoader(analytics: Analytics, appId: string): CatalogLoader {
  return async (kind: CatalogKind, ids: string[]) => {
    // A table name, so never from input: the template scope has only these kinds.
    if (!(CATALOG_KINDS as readonly string[]).includes(kind)) throw new Error(`not a catalog kind: ${kind}`);
    const rows = await analytics.query<{ id: string; record: Record<string, unknown> }>(
      `SELECT id, record FROM catalog_${kind} FINAL WHERE app_id = {app:String} AND id IN {ids:Array(String)}`,
      { app: appId, ids },
    );
    return new Map(rows.map((r) => [r.id, { ...r.record, id: r.id }]));
  };
}
