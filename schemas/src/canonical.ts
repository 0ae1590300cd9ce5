import type { Block, RejectionReason } from '@evp/core';

/**
 * How an upload was shaped: the spec's current (2.1) and earlier (2.2) envelopes, or `flat`, the
 * server-side import form whose every log carries its own user (docs/data-contract.md).
 */
export type EnvelopeForm = 'current' | 'earlier' | 'flat';

/** What every envelope form becomes (see docs/data-contract.md). Times are UTC epoch ms. */
export interface CanonicalEvent {
  /** Deterministic: the same event re-sent yields the same id. */
  event_id: string;
  app_id: string;
  user_id: string;
  session_id: string;
  session_start: number | null;
  /** 0 in s_id (immediate upload) becomes null. */
  session_end: number | null;
  device_id: string;
  os: string;
  sdk_name: string;
  sdk_version: string;
  app_version: string;
  app_version_code: number | null;
  tz: string;
  block: Block;
  /** The canonical event name (aliases resolved: action_response → nudge_response). */
  name: string;
  /** The name as the client sent it, when it differs from `name`. */
  sent_name: string | null;
  property: string | null;
  time: number;
  online: boolean;
  received_at: number;
  request_id: string;
  envelope: EnvelopeForm;
  /** Validated properties of the event (shape from its definition). */
  props: Record<string, unknown>;
  /** Any JSON value sent as `meta`. */
  meta: unknown;
  /** Earlier/flat form client info (up, dn, d_info, app_info, ip) and declared ids, kept not dropped. */
  client: Record<string, unknown> | null;
  /**
   * What the validator accepted but the app should know: unknown properties kept as extras, client
   * quirks it normalised (each named; docs/data-contract.md), malformed session ids. Empty when none.
   */
  warnings: RejectionReason[];
}

/** Provenance the gateway attaches to every raw message. */
export interface IngestContext {
  appId: string;
  requestId: string;
  receivedAt: number;
  keyId: string;
}
