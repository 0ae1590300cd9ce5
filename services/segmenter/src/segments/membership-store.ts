import { chToRfc3339, formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import type { MemberPage, MembershipChange, MembershipReader } from './model';
import { floorsBySegment } from './seq-floors';

/** The latest change of one (segment, user), as `segment_members` FINAL holds it. */
export interface MemberState {
  user_id: string;
  is_member: boolean;
  /** Epoch ms of the last entry. */
  entered_at: number;
  /** Epoch ms of the last exit; null while a member. */
  exited_at: number | null;
  /** The definition version evaluated when the change was seen. */
  version: number;
  seq: number;
  /** Whether the change's record is known to be on the membership topic. */
  emitted: boolean;
  /** Wall-clock epoch ms of the write (where recovery starts reading the topic back). */
  written_at: number;
}

/** The change a state row records. */
export const changeOf = (appId: string, segmentId: string, s: MemberState): MembershipChange => ({
  app_id: appId,
  segment_id: segmentId,
  user_id: s.user_id,
  change: s.is_member ? 'entered' : 'exited',
  at: s.is_member ? s.entered_at : (s.exited_at as number),
  version: s.version,
  seq: s.seq,
});

const STATE_COLUMNS = `user_id, is_member, toUnixTimestamp64Milli(entered_at) AS entered_at, toUnixTimestamp64Milli(exited_at) AS exited_at,
  version, seq, emitted, toUnixTimestamp64Milli(written_at) AS written_at`;

/** Most user ids one state query names (keeps a parameter of a large scoped item bounded). */
const USERS_PER_QUERY = 10_000;

/**
 * The membership state in ClickHouse (`segment_members`, migration 008): one row per change, written
 * twice (emitted false, then true); FINAL keeps each user's latest, so current members are
 * `FINAL … WHERE is_member`. Every query filters by app and segment.
 */
export interface MembershipState extends MembershipReader {
  /**
   * Each user's latest row of the segment: of the given users and of every user whose latest change
   * is not known to be on the topic (`emitted` false: a writer stopped between its steps), or of
   * every user it ever had.
   */
  load(appId: string, segmentId: string, users?: readonly string[]): Promise<Map<string, MemberState>>;
  /** One insert of these rows, each with its own `emitted`. */
  write(appId: string, segmentId: string, rows: readonly MemberState[]): Promise<void>;
  /**
   * The segment's seq floor (`segment_seq_floors`, migration 023): every seq of a key the expiry of
   * ended memberships deleted is at most this; 0 while none was. Read after the state that lacks the
   * key (evaluator.ts): the expiry raises it before it deletes.
   */
  seqFloor(appId: string, segmentId: string): Promise<number>;
}

export function createMembershipState(analytics: Analytics): MembershipState {
  const where = 'app_id = {app:String} AND segment_id = {segment:String}';

  async function rows(extra: string, params: Record<string, unknown>): Promise<MemberState[]> {
    return analytics.query<MemberState>(`SELECT ${STATE_COLUMNS} FROM segment_members FINAL WHERE ${where} ${extra}`, params);
  }

  return {
    async load(appId, segmentId, users) {
      const out = new Map<string, MemberState>();
      const params = { app: appId, segment: segmentId };
      if (users === undefined) {
        for (const r of await rows('', params)) out.set(r.user_id, r);
        return out;
      }
      for (let i = 0; i < users.length; i += USERS_PER_QUERY) {
        const some = users.slice(i, i + USERS_PER_QUERY);
        for (const r of await rows('AND (user_id IN {users:Array(String)} OR NOT emitted)', { ...params, users: some })) out.set(r.user_id, r);
      }
      return out;
    },

    async write(appId, segmentId, states) {
      if (states.length === 0) return;
      await analytics.insert(
        'segment_members',
        states.map((s) => ({
          app_id: appId,
          segment_id: segmentId,
          user_id: s.user_id,
          is_member: s.is_member,
          entered_at: formatDateTime64(s.entered_at),
          exited_at: s.exited_at === null ? null : formatDateTime64(s.exited_at),
          version: s.version,
          seq: s.seq,
          emitted: s.emitted,
          state_version: s.seq * 2 + (s.emitted ? 1 : 0),
          written_at: formatDateTime64(s.written_at),
        })),
      );
    },

    async seqFloor(appId, segmentId) {
      // No row: a segment the expiry never touched, floor 0.
      const found = await analytics.query<{ floor: number }>(floorsBySegment(where), {
        app: appId,
        segment: segmentId,
      });
      return found[0]?.floor ?? 0;
    },

    async members(appId, segmentId, opts): Promise<MemberPage> {
      const after = opts.cursor === undefined ? '' : Buffer.from(opts.cursor, 'base64url').toString('utf8');
      const found = await analytics.query<{ user_id: string; entered_at: string }>(
        `SELECT user_id, entered_at FROM segment_members FINAL
         WHERE ${where} AND is_member AND user_id > {after:String}
         ORDER BY user_id LIMIT {limit:UInt32}`,
        { app: appId, segment: segmentId, after, limit: opts.limit + 1 },
      );
      const data = found.slice(0, opts.limit).map((r) => ({ user_id: r.user_id, entered_at: chToRfc3339(r.entered_at) }));
      const last = data[data.length - 1];
      return found.length > opts.limit && last ? { data, cursor: Buffer.from(last.user_id, 'utf8').toString('base64url') } : { data };
    },

    async segmentsOf(appId, userId) {
      const found = await analytics.query<{ segment_id: string; entered_at: string }>(
        `SELECT segment_id, entered_at FROM segment_members FINAL
         WHERE app_id = {app:String} AND user_id = {user:String} AND is_member
         ORDER BY segment_id`,
        { app: appId, user: userId },
      );
      return found.map((r) => ({ segment_id: r.segment_id, entered_at: chToRfc3339(r.entered_at) }));
    },
  };
}
