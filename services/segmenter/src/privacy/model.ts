import type { IdKind } from './targets';

export const ERASURE_STATES = ['accepted', 'suppressed', 'deleting', 'verifying', 'completed', 'failed'] as const;
type ErasureState = (typeof ERASURE_STATES)[number];
export const EXPORT_STATES = ['accepted', 'completed', 'failed'] as const;
type ExportState = (typeof EXPORT_STATES)[number];

/** When a request (or one store of it) reached a state. */
interface Step {
  state: string;
  at: string;
}

/** One store of an erasure: its own state, the time of each step, and what it held before and after. */
export interface StoreEntry {
  /** `clickhouse.<table>`, or `redis.actions` (the action store). */
  store: string;
  state: 'pending' | 'deleting' | 'verifying' | 'completed' | 'failed';
  steps: Step[];
  /** Rows (the action store: records, PersonHoldings) naming the ids before the delete. */
  before?: number;
  /** Rows (records) after, as queries see them. */
  after?: number;
  /** ClickHouse: rows after, counted with the deleted mask ignored (`apply_deleted_mask = 0`): rows still on disk. */
  after_physical?: number;
  /** The action store: keys still naming the ids after the delete (its per-user index included). */
  keys_after?: number;
  /** The action store: what was asked of its storage so the deleted data leaves the disk, and its answer (BGREWRITEAOF). */
  storage?: string;
}

/** A topic's copies cannot be deleted: the last one is gone once the topic's retention has passed since the suppression. */
export interface KafkaEntry {
  topic: string;
  retention_ms: number;
  last_copy_gone_by: string;
}

export interface ErasureRequest {
  id: string;
  kind: 'erasure';
  state: ErasureState;
  ids: Record<IdKind, number>;
  created_at: string;
  updated_at: string;
  steps: Step[];
  stores: StoreEntry[];
  kafka: KafkaEntry[];
  /** Stores this version does not erase yet (stated, so `completed` is not read as more than it is). */
  not_covered: string[];
  /** Set when failed: the stores whose after-count is not 0, or the error that stopped the request. */
  failure?: { stores: string[]; message?: string };
}

export interface ExportRequest {
  id: string;
  kind: 'export';
  state: ExportState;
  id_kind: IdKind;
  created_at: string;
  updated_at: string;
  /** Rows found per store, and in all. */
  rows?: number;
  stores?: { store: string; rows: number }[];
}

export type PrivacyRequest = ErasureRequest | ExportRequest;

/** A request as stored: its document, and the keyed hashes of its ids (never the ids). */
export interface StoredRequest<R extends PrivacyRequest = PrivacyRequest> {
  appId: string;
  request: R;
  idHashes: string[];
}

export interface Suppression {
  id_hash: string;
  kind: IdKind;
  request_id: string;
  at: string;
}
