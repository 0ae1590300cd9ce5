import type { Analytics, Logger } from '@evp/core';
import { membershipChangeId } from '@evp/schemas';
import type { ChangeLog } from './change-log';
import { type CompiledSegment, evaluationParams } from '@evp/segment-language';
import type { StoredSegment } from './definitions-store';
import type { EngineMetrics } from '../metrics';
import { changeOf, type MembershipState, type MemberState } from './membership-store';
import type { MembershipChange, Segment } from './model';

export interface EvaluatorDeps {
  analytics: Analytics;
  state: MembershipState;
  log: ChangeLog;
  compile: (segment: Segment) => Promise<CompiledSegment>;
  /** The instant of an evaluation (`now` of the compiled query, `at` of its changes). */
  now: () => number;
  /** The log's clock: when a state row was written, compared with the topic's log times. */
  wallClock: () => number;
  /** How far before a pending row's write recovery starts reading the topic (clock skew between writers and the log). */
  recoveryMarginMs: number;
  logger: Logger;
  metrics: EngineMetrics;
  /**
   * Which of these users of an app an erasure is deleting now (privacy: usersBeingErased). Their
   * changes are neither written nor emitted, and their held marks are dropped: an erasure deletes
   * the events before the memberships, and a change computed in between would be an `exited` (or
   * a row written back) for a person being erased. Absent: no one is.
   */
  erasing?: (appId: string, users: readonly string[]) => Promise<Set<string>>;
}

/**
 * The seq of a key's first change (always an entry) above the segment's floor: the smallest odd
 * number above it, so entries stay odd and exits even (docs/segments.md). 1 while no key of the
 * segment was ever expired (floor 0).
 */
const firstSeq = (floor: number) => floor + (floor % 2 === 0 ? 1 : 2);

/** A segment's state being read for an evaluation (Evaluator.load), started before its definition is known. */
interface StateRead {
  readonly rows: Promise<Map<string, MemberState>>;
  /** Rows this process published whose emitted mark may not have been stored when the read began. */
  readonly published: ReadonlySet<string>;
}

export interface Evaluator {
  /** Starts reading the state of these users of a segment (every user when absent), pending rows included. */
  load(appId: string, segmentId: string, users?: readonly string[]): StateRead;
  /**
   * Evaluates the latest version of a segment for the given users (every user when absent) and
   * publishes the changes; returns them. First finishes what a writer left half done for the
   * segment: publishes the pending changes not on the topic and marks them emitted. `read`: the
   * state of exactly these users, when the caller started reading it early (load).
   */
  evaluate(segment: StoredSegment, users?: readonly string[], read?: StateRead): Promise<MembershipChange[]>;
  /** Writes the emitted marks still held back (the engine calls it when its work pauses, and on stop). */
  flushMarks(): Promise<void>;
}

/**
 * Evaluation of one segment by its owner, and the protocol that makes every change one record:
 * (1) the changed rows are inserted with emitted = false, (2) their records are produced,
 * (3) the rows are inserted again with emitted = true. A writer that stops between (1) and (3)
 * leaves rows pending; before evaluating a segment its owner reads the topic back from those rows'
 * write time, produces only the changes not found there and marks all of them emitted
 * (docs/segments.md, "Membership topic").
 *
 * Step (3) is held back and rides in the insert of the segment's next step (1), or is written by
 * flushMarks() when the work pauses: one insert per evaluation instead of two. Until its mark is
 * stored, this process knows the row is published (`published`) and does not recover it; after a
 * crash the marks held back are recovered like any pending row (found on the topic, none twice).
 */
export function createEvaluator(deps: EvaluatorDeps): Evaluator {
  const { metrics } = deps;
  const segmentKey = (appId: string, segmentId: string) => `${appId}\u0000${segmentId}`;
  const rowKey = (appId: string, segmentId: string, row: MemberState) => `${appId}\u0000${segmentId}\u0000${row.user_id}\u0000${row.seq}`;
  /** Published rows whose emitted mark is held back, per segment (rows with emitted = true). */
  const marks = new Map<string, { appId: string; segmentId: string; rows: MemberState[] }>();
  /** rowKey of every published row whose mark is held back or being written. */
  const published = new Set<string>();

  function holdMarks(appId: string, segmentId: string, rows: readonly MemberState[]) {
    const key = segmentKey(appId, segmentId);
    const held = marks.get(key) ?? { appId, segmentId, rows: [] };
    marks.set(key, held);
    for (const r of rows) {
      held.rows.push({ ...r, emitted: true });
      published.add(rowKey(appId, segmentId, r));
    }
  }

  function takeMarks(appId: string, segmentId: string): MemberState[] {
    const key = segmentKey(appId, segmentId);
    const held = marks.get(key);
    marks.delete(key);
    return held?.rows ?? [];
  }

  /** The users of `rows` an erasure is deleting now (none without deps.erasing, or without rows). */
  const erasingOf = async (appId: string, rows: readonly MemberState[]) =>
    rows.length === 0 || !deps.erasing ? new Set<string>() : deps.erasing(appId, [...new Set(rows.map((r) => r.user_id))]);

  /**
   * Held marks of users being erased are dropped, not written: a mark is the whole row again, and
   * would bring back the row the erasure deletes. Their pending rows go with the erasure.
   */
  function dropErased(appId: string, segmentId: string, rows: MemberState[], erased: ReadonlySet<string>): MemberState[] {
    if (erased.size === 0) return rows;
    const gone = rows.filter((r) => erased.has(r.user_id));
    stored(appId, segmentId, gone);
    return rows.filter((r) => !erased.has(r.user_id));
  }

  /** After the marks are stored: a later read sees them, and this process stops vouching for them. */
  function stored(appId: string, segmentId: string, rows: readonly MemberState[]) {
    for (const r of rows) published.delete(rowKey(appId, segmentId, r));
  }

  function load(appId: string, segmentId: string, users?: readonly string[]): StateRead {
    // Taken before the read starts: a mark stored while it runs may be missing from what it returns.
    const snapshot = new Set(published);
    return { rows: deps.state.load(appId, segmentId, users), published: snapshot };
  }

  async function flushMarks(): Promise<void> {
    for (const { appId, segmentId } of [...marks.values()]) {
      let rows = takeMarks(appId, segmentId);
      try {
        rows = dropErased(appId, segmentId, rows, await erasingOf(appId, rows));
        await deps.state.write(appId, segmentId, rows);
      } catch (err) {
        // Held again for the next write; a process that stops first leaves them to recovery.
        holdMarks(appId, segmentId, rows);
        throw err;
      }
      stored(appId, segmentId, rows);
    }
  }

  /** Publishes the pending changes of one segment not found on the topic, then marks them all emitted. */
  async function recover(appId: string, segmentId: string, pending: readonly MemberState[]): Promise<void> {
    const changes = new Map(pending.map((row) => changeOf(appId, segmentId, row)).map((c) => [membershipChangeId(c), c]));
    const from = Math.min(...pending.map((row) => row.written_at)) - deps.recoveryMarginMs;
    const found = await deps.log.present(from, new Set(changes.keys()));
    const missing = [...changes].filter(([id]) => !found.has(id)).map(([, c]) => c);
    await deps.log.publish(missing);
    await deps.state.write(
      appId,
      segmentId,
      pending.map((row) => ({ ...row, emitted: true })),
    );
    metrics.recovered.inc({ outcome: 'found' }, changes.size - missing.length);
    metrics.recovered.inc({ outcome: 'published' }, missing.length);
    deps.logger.warn(
      { segment: `${appId}:${segmentId}`, pending: changes.size, published: missing.length },
      'recovered membership changes a writer left pending',
    );
  }

  async function members(segment: StoredSegment, at: number, users: readonly string[] | undefined): Promise<Set<string>> {
    // A deleted segment has no members: everyone exits, with the last version's number.
    if (segment.deleted) return new Set();
    const c = await deps.compile(segment);
    const rows = await deps.analytics.query<{ user_id: string }>(c.sql, { ...c.params, ...evaluationParams(segment.app_id, new Date(at), users) });
    return new Set(rows.map((r) => r.user_id));
  }

  async function evaluate(segment: StoredSegment, users?: readonly string[], read?: StateRead): Promise<MembershipChange[]> {
    const { app_id: appId, id: segmentId } = segment;
    const kind = users ? 'users' : 'full';
    const started = performance.now();
    const at = deps.now();
    const scope = users ? [...new Set(users)] : undefined;
    const state = read ?? load(appId, segmentId, scope);
    const [now, before] = await Promise.all([members(segment, at, scope), state.rows]);
    // What a writer left half done (the load brings every pending row of the segment) goes out
    // before anything new: one query per evaluation serves both. Rows this process published and
    // holds the marks of are not half done.
    let pending = [...before.values()].filter((row) => {
      if (row.emitted) return false;
      const key = rowKey(appId, segmentId, row);
      return !published.has(key) && !state.published.has(key);
    });
    // A half-done change of a person being erased is not finished: its row goes with the erasure.
    const erasedPending = await erasingOf(appId, pending);
    pending = pending.filter((row) => !erasedPending.has(row.user_id));
    if (pending.length > 0) await recover(appId, segmentId, pending);
    const writtenAt = deps.wallClock();
    const candidates = scope ?? new Set([...now, ...before.keys()]);
    const moving = [...candidates].filter((user) => (before.get(user)?.is_member ?? false) !== now.has(user));
    // A key without a row (new, or deleted by the expiry of ended memberships) starts above the
    // segment's seq floor. Read only now, after the state: the expiry raises the floor before it
    // deletes, so a state read that misses a deleted key is followed by a floor that covers it.
    const floor = moving.some((user) => !before.has(user)) ? await deps.state.seqFloor(appId, segmentId) : 0;
    let changed: MemberState[] = moving.map((user) => {
      const prev = before.get(user);
      const is = now.has(user);
      return {
        user_id: user,
        is_member: is,
        entered_at: is ? at : (prev as MemberState).entered_at,
        exited_at: is ? null : at,
        version: segment.version,
        seq: prev ? prev.seq + 1 : firstSeq(floor),
        emitted: false,
        written_at: writtenAt,
      };
    });
    if (changed.length > 0 && deps.erasing) {
      // One look at the erasures in flight for the changed users and the held marks together.
      const erased = await erasingOf(appId, [...changed, ...(marks.get(segmentKey(appId, segmentId))?.rows ?? [])]);
      if (erased.size > 0) {
        const all = changed.length;
        changed = changed.filter((r) => !erased.has(r.user_id));
        metrics.erasedChanges.inc(all - changed.length);
        const held = takeMarks(appId, segmentId);
        holdMarks(appId, segmentId, dropErased(appId, segmentId, held, erased));
      }
    }
    const changes = changed.map((r) => changeOf(appId, segmentId, r));
    if (changed.length > 0) {
      const held = takeMarks(appId, segmentId);
      try {
        await deps.state.write(appId, segmentId, [...held, ...changed]);
      } catch (err) {
        holdMarks(appId, segmentId, held);
        throw err;
      }
      stored(appId, segmentId, held);
      await deps.log.publish(changes);
      holdMarks(appId, segmentId, changed);
      for (const c of changes) metrics.changes.inc({ change: c.change });
    }
    metrics.evaluations.inc({ kind });
    metrics.evaluationSeconds.observe({ kind }, (performance.now() - started) / 1000);
    return changes;
  }

  return { load, evaluate, flushMarks };
}
