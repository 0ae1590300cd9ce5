import { ApiError, type Analytics, type Checked, type RejectionReason } from '@evp/core';
import { type CompiledSegment, type Condition, dependentsOf, evaluationParams } from '@evp/segment-language';
import type { MemberPage, MembershipReader, Segment, SegmentDefinitions, SegmentScheduler } from './model';

/** What checking a definition of an app gives: the definition, or every problem with its path. */

export interface SegmentsServiceDeps {
  definitions: SegmentDefinitions;
  membership: MembershipReader;
  scheduler: SegmentScheduler;
  analytics: Analytics;
  /** Validates a definition against the data contract and the app's other segments (`selfId`: the segment being updated, for cycles). */
  check(appId: string, json: unknown, selfId?: string): Promise<Checked<Condition>>;
  compile(appId: string, definition: Condition): Promise<CompiledSegment>;
  /**
   * Called once a segment is saved or deleted, before its recompute is requested and before the
   * answer: the engine composed in this process reloads its segment list, so events stored from then
   * on get incremental items here, and those stored before are the recompute's (no gap in between;
   * other replicas reload within their refresh interval, docs/segments.md).
   */
  onChanged?: () => Promise<void>;
  /** The ids of the app's campaigns, not ended, whose trigger names the segment: a segment they name is not deleted. Absent: no campaigns here. */
  campaignsUsing?: (appId: string, segmentId: string) => Promise<string[]>;
  now?: () => number;
}

export interface SegmentPreview {
  count: number;
  /** The first members by user id, at most PREVIEW_SAMPLE. */
  sample: string[];
  sql: string;
}

export interface UserSegment {
  segment_id: string;
  name: string;
  entered_at: string;
}

export const PREVIEW_SAMPLE = 20;
export const NAME_MAX = 200;
/** Most reasons one 400 lists: the answer stays small however wrong a definition is. */
export const MAX_REASONS_LISTED = 100;

/** 400 invalid_definition naming the first problem; `details.issues` lists them (same shape as the action store's). */
function refuse(reasons: RejectionReason[]): never {
  const first = reasons[0] as RejectionReason;
  throw new ApiError('invalid_definition', {
    message: first.message,
    path: first.path === '$' ? '$.definition' : `$.definition${first.path.slice(1)}`,
    details: {
      issues: reasons.slice(0, MAX_REASONS_LISTED).map((p) => ({ ...p, path: p.path === '$' ? '$.definition' : `$.definition${p.path.slice(1)}` })),
      issue_count: reasons.length,
    },
  });
}

function readName(body: Record<string, unknown>): string {
  const name = body.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > NAME_MAX) {
    throw new ApiError('invalid_request', { message: `name must be a non-empty string of at most ${NAME_MAX} characters`, path: '$.name' });
  }
  return name;
}

function readBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('invalid_request', { message: 'the body must be a JSON object', path: '$' });
  const b = body as Record<string, unknown>;
  if (!Object.hasOwn(b, 'definition')) throw new ApiError('invalid_request', { message: 'definition is required', path: '$.definition' });
  return b;
}

/**
 * The segments an app defines, as its API offers them: every call is scoped to the key's app, a
 * definition is checked before it is saved, and saving asks for a full recompute (of the segment and
 * of those that reference it), so membership follows without waiting for the schedule.
 */
export function createSegmentsService(deps: SegmentsServiceDeps) {
  const now = deps.now ?? Date.now;

  async function checked(appId: string, json: unknown, selfId?: string): Promise<Condition> {
    const r = await deps.check(appId, json, selfId);
    if (!r.ok) refuse(r.reasons);
    return r.value;
  }

  async function existing(appId: string, id: string): Promise<Segment> {
    const s = await deps.definitions.get(appId, id);
    if (!s) throw new ApiError('not_found', { message: `no segment ${id} in this app`, path: 'params.segment_id' });
    return s;
  }

  async function dependents(appId: string, id: string): Promise<string[]> {
    return dependentsOf(id, await deps.definitions.list(appId));
  }

  /** After a change is saved. Its reload failing loses nothing: the periodic reload (which logs failures) comes, and the recompute covers what was stored until then. */
  async function changed(): Promise<void> {
    await deps.onChanged?.().catch(() => undefined);
  }

  async function recomputeWithDependents(appId: string, id: string): Promise<void> {
    for (const sid of [id, ...(await dependents(appId, id))]) await deps.scheduler.requestRecompute(appId, sid);
  }

  return {
    async create(appId: string, body: unknown): Promise<Segment> {
      const b = readBody(body);
      const name = readName(b);
      const definition = await checked(appId, b.definition);
      const segment = await deps.definitions.create(appId, { name, definition });
      await changed();
      await deps.scheduler.requestRecompute(appId, segment.id);
      return segment;
    },
    list: (appId: string): Promise<Segment[]> => deps.definitions.list(appId),
    get: existing,
    async update(appId: string, id: string, body: unknown): Promise<Segment> {
      await existing(appId, id);
      const b = readBody(body);
      const name = readName(b);
      const definition = await checked(appId, b.definition, id);
      const segment = await deps.definitions.update(appId, id, { name, definition });
      if (!segment) throw new ApiError('not_found', { message: `no segment ${id} in this app`, path: 'params.segment_id' });
      await changed();
      await recomputeWithDependents(appId, id);
      return segment;
    },
    async remove(appId: string, id: string): Promise<void> {
      const [referrer] = await dependents(appId, id);
      if (referrer !== undefined) {
        throw new ApiError('conflict', { message: `segment ${id} is referenced by segment ${referrer}; change that one first`, path: 'params.segment_id' });
      }
      // A campaign on a deleted segment would never trigger again without saying so: end it (or point it elsewhere) first.
      const campaigns = (await deps.campaignsUsing?.(appId, id)) ?? [];
      if (campaigns.length > 0) {
        throw new ApiError('conflict', {
          message: `segment ${id} triggers campaign${campaigns.length > 1 ? 's' : ''} ${campaigns.join(', ')}; end ${campaigns.length > 1 ? 'them' : 'it'} or change ${campaigns.length > 1 ? 'their' : 'its'} trigger first`,
          path: 'params.segment_id',
          details: { campaign_ids: campaigns },
        });
      }
      if (!(await deps.definitions.delete(appId, id))) throw new ApiError('not_found', { message: `no segment ${id} in this app`, path: 'params.segment_id' });
      await changed();
      // The deletion's recompute makes every member exit (changes on the membership topic).
      await deps.scheduler.requestRecompute(appId, id);
    },
    async preview(appId: string, body: unknown): Promise<SegmentPreview> {
      const definition = await checked(appId, readBody(body).definition);
      const compiled = await deps.compile(appId, definition);
      const sql = `SELECT count() AS count, arraySlice(arraySort(groupArray(user_id)), 1, ${PREVIEW_SAMPLE}) AS sample FROM (${compiled.sql})`;
      const [row] = await deps.analytics.query<{ count: number | string; sample: string[] }>(sql, {
        ...compiled.params,
        ...evaluationParams(appId, new Date(now())),
      });
      return { count: Number(row?.count ?? 0), sample: row?.sample ?? [], sql: compiled.sql };
    },
    async members(appId: string, id: string, opts: { cursor?: string; limit: number }): Promise<MemberPage> {
      await existing(appId, id);
      return deps.membership.members(appId, id, opts);
    },
    async segmentsOf(appId: string, userId: string): Promise<UserSegment[]> {
      const [rows, segments] = await Promise.all([deps.membership.segmentsOf(appId, userId), deps.definitions.list(appId)]);
      const names = new Map(segments.map((s) => [s.id, s.name]));
      // A membership row of a segment deleted a moment ago is not shown: the segment is gone.
      return rows.flatMap((r) => {
        const name = names.get(r.segment_id);
        return name === undefined ? [] : [{ segment_id: r.segment_id, name, entered_at: r.entered_at }];
      });
    },
  };
}

export type SegmentsService = ReturnType<typeof createSegmentsService>;
