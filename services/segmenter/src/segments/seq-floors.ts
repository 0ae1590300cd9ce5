/**
 * Each segment's seq floor (`segment_seq_floors`, migration 023): raised to the highest seq of the
 * memberships about to be deleted, by the expiry of ended memberships (expire-ended.ts) and by an
 * erasure (privacy/targets.ts), so that a key created again starts above every seq the membership
 * topic carried for it (evaluator.ts, `firstSeq`). The one place that knows the table: the floor is
 * the max of its rows, never updated in place.
 */

/** The floor of each segment among the rows `where` selects (a segment without a row has none). */
export const floorsBySegment = (where: string): string => `SELECT segment_id, max(floor) AS floor FROM segment_seq_floors WHERE ${where} GROUP BY segment_id`;

/**
 * Raises the floors to the highest seq of the `segment_members` rows `where` selects, in one
 * statement: the ids stay in the statement's subqueries (an erasure's never appear as literals).
 */
export const raiseFloorsOf = (where: string, raisedAt = 'now64(3)'): string =>
  `INSERT INTO segment_seq_floors (app_id, segment_id, floor, raised_at)
   SELECT app_id, segment_id, max(seq), ${raisedAt} FROM segment_members WHERE ${where} GROUP BY app_id, segment_id`;
