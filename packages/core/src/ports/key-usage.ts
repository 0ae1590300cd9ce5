/** One key's latest use seen by a replica, in epoch ms. */
export interface KeyUse {
  appId: string;
  keyId: string;
  at: number;
}

/**
 * Where replicas share when each key was last used. Writes keep the latest instant per key (an
 * older one never overwrites a newer one), so replicas may flush in any order.
 */
export interface KeyUsageStore {
  record(uses: readonly KeyUse[]): Promise<void>;
  /** Key id → epoch ms of its last recorded use, for one app. */
  lastUsed(appId: string): Promise<Map<string, number>>;
  close(): Promise<void>;
}
