import { randomUUID } from 'node:crypto';
import { chToRfc3339, formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import type { Condition } from '@evp/segment-language';
import type { Segment, SegmentDefinitions } from './model';

/** A saved segment's latest version, deleted or not: what the engine evaluates (a deleted one to nobody). */
export interface StoredSegment extends Segment {
  deleted: boolean;
}

export interface SegmentStore extends SegmentDefinitions {
  /** The latest version, also when it is a deletion; undefined when the segment never existed. */
  latest(appId: string, id: string): Promise<StoredSegment | undefined>;
}

interface DefinitionRow {
  app_id: string;
  segment_id: string;
  version: number;
  name: string;
  definition: string;
  created_at: string;
  updated_at: string;
  deleted: boolean;
}

const COLUMNS = 'app_id, segment_id, version, name, definition, created_at, updated_at, deleted';

const toSegment = (r: DefinitionRow): StoredSegment => ({
  app_id: r.app_id,
  id: r.segment_id,
  name: r.name,
  version: r.version,
  definition: JSON.parse(r.definition) as Condition,
  created_at: chToRfc3339(r.created_at),
  updated_at: chToRfc3339(r.updated_at),
  deleted: r.deleted,
});

const live = (s: StoredSegment | undefined): Segment | undefined => {
  if (!s || s.deleted) return undefined;
  const { deleted: _deleted, ...segment } = s;
  return segment;
};

/**
 * Segment definitions in ClickHouse (`segment_definitions`, migration 008): every save inserts a row
 * with the next version and FINAL reads the latest. Every call filters by the app.
 *
 * ClickHouse has no compare-and-set: an update reads the latest version and inserts version + 1. Two
 * updates of one segment at the same moment can both read version n and both insert n + 1; both
 * callers are answered version n + 1, and the row inserted last is the one kept (ReplacingMergeTree
 * keeps the last inserted of equal versions). Each update requests a recompute that runs after its
 * write, so membership follows the definition that was kept (docs/segments.md).
 */
export function createSegmentStore(deps: { analytics: Analytics; now?: () => number; newId?: () => string }): SegmentStore {
  const { analytics } = deps;
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomUUID;

  const write = (s: StoredSegment) =>
    analytics.insert('segment_definitions', [
      {
        app_id: s.app_id,
        segment_id: s.id,
        version: s.version,
        name: s.name,
        definition: JSON.stringify(s.definition),
        created_at: formatDateTime64(Date.parse(s.created_at)),
        updated_at: formatDateTime64(Date.parse(s.updated_at)),
        deleted: s.deleted,
      },
    ]);

  const select = async (where: string, params: Record<string, unknown>) =>
    (
      await analytics.query<DefinitionRow>(`SELECT ${COLUMNS} FROM segment_definitions FINAL WHERE ${where} ORDER BY app_id, created_at, segment_id`, params)
    ).map(toSegment);

  async function latest(appId: string, id: string): Promise<StoredSegment | undefined> {
    return (await select('app_id = {app:String} AND segment_id = {id:String}', { app: appId, id }))[0];
  }

  /** The next version of a live segment, or undefined when there is none to change. */
  async function next(appId: string, id: string, change: Partial<StoredSegment>): Promise<StoredSegment | undefined> {
    const current = await latest(appId, id);
    if (!current || current.deleted) return undefined;
    const saved = { ...current, ...change, version: current.version + 1, updated_at: new Date(now()).toISOString() };
    await write(saved);
    return saved;
  }

  return {
    latest,
    async create(appId, input) {
      const at = new Date(now()).toISOString();
      const saved: StoredSegment = {
        app_id: appId,
        id: newId(),
        name: input.name,
        version: 1,
        definition: input.definition,
        created_at: at,
        updated_at: at,
        deleted: false,
      };
      await write(saved);
      return live(saved) as Segment;
    },
    get: async (appId, id) => live(await latest(appId, id)),
    list: async (appId) => (await select('app_id = {app:String} AND NOT deleted', { app: appId })).map((s) => live(s) as Segment),
    update: async (appId, id, input) => live(await next(appId, id, { name: input.name, definition: input.definition })),
    delete: async (appId, id) => (await next(appId, id, { deleted: true })) !== undefined,
    listAll: async () => (await select('NOT deleted', {})).map((s) => live(s) as Segment),
  };
}
