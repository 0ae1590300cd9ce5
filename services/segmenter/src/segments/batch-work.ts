import { workKey, type SegmentEntry, type WorkItem } from './work';

/** One segment's work in a batch of work items: a full evaluation, or the union of the users to re-evaluate. */
export interface SegmentWork {
  app_id: string;
  segment_id: string;
  /** Latest requested_at of the full items; undefined when there is none. */
  fullRequestedAt: number | undefined;
  fullItems: number;
  users: Set<string>;
  userItems: number;
}

/** A batch's items gathered per segment (in the order segments first appear): each segment is evaluated once per batch. */
export function collectWork(items: readonly WorkItem[]): Map<string, SegmentWork> {
  const work = new Map<string, SegmentWork>();
  for (const item of items) {
    const key = workKey(item.app_id, item.segment_id);
    let w = work.get(key);
    if (!w) work.set(key, (w = { app_id: item.app_id, segment_id: item.segment_id, fullRequestedAt: undefined, fullItems: 0, users: new Set(), userItems: 0 }));
    if (item.kind === 'full') {
      w.fullRequestedAt = Math.max(w.fullRequestedAt ?? item.requested_at, item.requested_at);
      w.fullItems += 1;
    } else {
      for (const u of item.users) w.users.add(u);
      w.userItems += 1;
    }
  }
  return work;
}

/** A replica's last full evaluation of a segment: when it started and which version it evaluated. */
export interface LastFull {
  startedAt: number;
  version: number;
}

/**
 * Whether a full item can be skipped: this replica already started a full evaluation of the same
 * version at or after it was requested (clocks of replicas assumed in step within well under the
 * time between a request and an evaluation; a new version is never skipped).
 */
export const coveredFull = (last: LastFull | undefined, requestedAt: number, version: number): boolean =>
  last !== undefined && last.version === version && requestedAt <= last.startedAt;

/**
 * The scheduled recompute's items: a full item per time-driven segment, requested at the multiple
 * of the interval at or before `now`, so every replica asking in the same interval asks with the same
 * requested_at, and the owner evaluates once and skips the other replicas' copies. Interval 0: `now`.
 */
export function timeDrivenWork(segments: readonly SegmentEntry[], now: number, intervalMs: number): WorkItem[] {
  const at = intervalMs > 0 ? Math.floor(now / intervalMs) * intervalMs : now;
  return segments.filter((s) => s.compiled.timeDriven).map((s) => ({ kind: 'full', app_id: s.app_id, segment_id: s.id, requested_at: at }));
}
