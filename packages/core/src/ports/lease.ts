/**
 * Named leases the replicas of a service share, so that a job meant to run once per turn (the
 * campaign worker's allocation timer, the segment engine's expiry of ended memberships) runs on one
 * replica at a time. A lease has at most one holder; a hold lasts `ttlMs` from its last acquire or
 * renew, then lapses on its own, so a holder that dies frees it without a word. Only the holder can
 * renew or release it. Holders are opaque strings: one per process and job (leasedTurns makes them).
 */
export interface LeaseStore {
  /**
   * Takes `name` for `holder` for `ttlMs` when no one holds it (or a hold lapsed), or extends the
   * hold when `holder` has it already. True when `holder` holds it now; false (nothing changed)
   * when another does.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends `holder`'s hold of `name` to `ttlMs` from now; false (nothing changed) when `holder` does not hold it (another does, or the hold lapsed). */
  renew(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Frees `name` when `holder` holds it; false (nothing changed) otherwise. */
  release(name: string, holder: string): Promise<boolean>;
  /** Who holds `name` now; undefined when no one does. */
  holderOf(name: string): Promise<string | undefined>;
  close(): Promise<void>;
}
