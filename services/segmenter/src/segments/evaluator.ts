import type { Analytics, Logger } from '@evp/core';
import { membershipChangeId } from '@evp/schemas';
import type { ChangeLog } from './change-log';
import { evaluationParams, type CompiledSegment } from './compiled';
import type { StoredSegment } from './definitions-store';
import type { EngineMetrics } from './metrics';
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
}

export interface Evaluator {
  /**
   * Evaluates the latest version of a segment for the given users (every user when absent) and
   * publishes the changes; returns them. First finishes what a writer left half done for the
   * segment: publishes the pending changes not on the topic and marks them emitted.
   */
  evaluate(segment: StoredSegment, users?: readonly string[]): Promise<MembershipChange[]>;
}

/**
 * Evaluation of one segment by its owner, and the protocol that makes every change one record:
 * (1) the changed rows are inserted with emitted = false, (2) their records are produced,
 * (3) the rows are inserted again with emitted = true. A writer that stops between (1) and (3)
 * leaves rows pending; before evaluating a segment its owner reads the topic back from those rows'
 * write time, produces only the changes not found there and marks all of them emitted
 * (docs/segments.md, "Membership topic").
 */
export function createEvaluator(deps: EvaluatorDeps): Evaluator {
  const { metrics } = deps;

  /** Publishes the pending changes of one segment not found on the topic, then marks them all emitted. */
  async function recover(appId: string, segmentId: string, pending: readonly MemberState[]): Promise<void> {
    const changes = new Map(pending.map((row) => changeOf(appId, segmentId, row)).map((c) => [membershipChangeId(c), c]));
    const from = Math.min(...pending.map((row) => row.written_at)) - deps.recoveryMarginMs;
    const found = await deps.log.present(from, new Set(changes.keys()));
    const missing = [...changes].filter(([id]) => !found.has(id)).map(([, c]) => c);
    await deps.log.publish(missing);
    await deps.state.write(appId, segmentId, pending, true);
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

  async function evaluate(segment: StoredSegment, users?: readonly string[]): Promise<MembershipChange[]> {
    const { app_id: appId, id: segmentId } = segment;
    const kind = users ? 'users' : 'full';
    const started = performance.now();
    const at = deps.now();
    const scope = users ? [...new Set(users)] : undefined;
    const [now, before] = await Promise.all([members(segment, at, scope), deps.state.load(appId, segmentId, scope)]);
    // What a writer left half done (the load brings every pending row of the segment) goes out
    // before anything new: one query per evaluation serves both.
    const pending = [...before.values()].filter((row) => !row.emitted);
    if (pending.length > 0) await recover(appId, segmentId, pending);
    const writtenAt = deps.wallClock();
    const changed: MemberState[] = [];
    const candidates = scope ?? new Set([...now, ...before.keys()]);
    for (const user of candidates) {
      const prev = before.get(user);
      const is = now.has(user);
      if ((prev?.is_member ?? false) === is) continue;
      changed.push({
        user_id: user,
        is_member: is,
        entered_at: is ? at : (prev as MemberState).entered_at,
        exited_at: is ? null : at,
        version: segment.version,
        seq: (prev?.seq ?? 0) + 1,
        emitted: false,
        written_at: writtenAt,
      });
    }
    const changes = changed.map((r) => changeOf(appId, segmentId, r));
    if (changed.length > 0) {
      await deps.state.write(appId, segmentId, changed, false);
      await deps.log.publish(changes);
      await deps.state.write(appId, segmentId, changed, true);
      for (const c of changes) metrics.changes.inc({ change: c.change });
    }
    metrics.evaluations.inc({ kind });
    metrics.evaluationSeconds.observe({ kind }, (performance.now() - started) / 1000);
    return changes;
  }

  return { evaluate };
}
