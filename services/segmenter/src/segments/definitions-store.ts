import { versionedTable, type VersionedTableDeps, type VersionedTableSpec } from '@evp/clickhouse';
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

const DEFINITIONS: VersionedTableSpec<StoredSegment> = {
  table: 'segment_definitions',
  idColumn: 'segment_id',
  columns: ['name', 'definition', 'deleted'],
  toColumns: (s) => ({ name: s.name, definition: JSON.stringify(s.definition), deleted: s.deleted }),
  fromColumns: (row) => ({ name: row.name as string, definition: JSON.parse(row.definition as string) as Condition, deleted: row.deleted as boolean }),
};

const live = (s: StoredSegment | undefined): Segment | undefined => {
  if (!s || s.deleted) return undefined;
  const { deleted: _deleted, ...segment } = s;
  return segment;
};

/**
 * Segment definitions in ClickHouse (`segment_definitions`, migration 008), kept as versions
 * (@evp/clickhouse, versionedTable). Every call filters by the app. Two updates of one segment at the
 * same moment can both write version n + 1 and the row inserted last is kept; each update requests a
 * recompute that runs after its write, so membership follows the definition that was kept
 * (docs/segments.md).
 */
export function createSegmentStore(deps: VersionedTableDeps): SegmentStore {
  const definitions = versionedTable(deps, DEFINITIONS);

  /** The next version of a live segment, or undefined when there is none to change. */
  async function next(appId: string, id: string, change: Partial<StoredSegment>): Promise<StoredSegment | undefined> {
    const current = await definitions.latest(appId, id);
    return !current || current.deleted ? undefined : definitions.next(current, change);
  }

  return {
    latest: (appId, id) => definitions.latest(appId, id),
    create: async (appId, input) => live(await definitions.first(appId, () => ({ name: input.name, definition: input.definition, deleted: false }))) as Segment,
    get: async (appId, id) => live(await definitions.latest(appId, id)),
    list: async (appId) => (await definitions.select('app_id = {app:String} AND NOT deleted', { app: appId })).map((s) => live(s) as Segment),
    update: async (appId, id, input) => live(await next(appId, id, { name: input.name, definition: input.definition })),
    delete: async (appId, id) => (await next(appId, id, { deleted: true })) !== undefined,
    listAll: async () => (await definitions.select('NOT deleted', {})).map((s) => live(s) as Segment),
  };
}
