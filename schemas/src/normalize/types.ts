import type { RejectionReason } from '@evp/core';
import type { Reason } from '../rules/registry';
import type { ClientLine } from '../clients/identity';
import type { CanonicalEvent, EnvelopeForm } from '../canonical';
import type { RejectionKind } from '../rejected';

/** A rejection as the normaliser sees it; the validator adds provenance to make a RejectedRecord. */
export interface Rejection {
  kind: RejectionKind;
  reasons: Reason[];
  /** The offending JSON value (event, or envelope for envelope violations). */
  payload: unknown;
  event_count: number;
  envelope_index: number | null;
  event_index: number | null;
  event_name: string | null;
  /** The envelope's user, when it could be read (absent for catalog records and unreadable envelopes). */
  user_id?: string | null;
}

export interface AcceptedEvent {
  event: CanonicalEvent;
  /** The event's own warnings (`event.warnings`, typed as the canonical event carries them). */
  warnings: RejectionReason[];
  /** Index of the event in its envelope's `data`. */
  event_index: number;
}

/** What a normaliser makes of a body: its accepted events (or catalog records) and its rejections. */
export interface NormalizeResult<Accepted = AcceptedEvent> {
  accepted: Accepted[];
  rejected: Rejection[];
}

export interface NormalizeOptions {
  /** Largest accepted event, as JSON characters. */
  maxEventChars: number;
}

export const DEFAULT_NORMALIZE_OPTIONS: NormalizeOptions = { maxEventChars: 64 * 1024 };

/** Envelope-level facts shared by every event of one envelope (per event in the flat form). */
export interface EnvelopeFacts {
  form: EnvelopeForm;
  userId: string;
  sessionId: string;
  sessionStart: number | null;
  sessionEnd: number | null;
  deviceId: string;
  os: string;
  sdkName: string;
  sdkVersion: string;
  appVersion: string;
  appVersionCode: number | null;
  tz: string;
  client: Record<string, unknown> | null;
  /** Which known client sent it (clients/identity.ts), from the form and the sdk, once per envelope; null for any other client. */
  line: ClientLine | null;
  /** The sdk version as numbers (`1.2.3` → [1, 2, 3]) for a quirk gated to some versions of the line; empty when none. */
  lineVersion: readonly number[];
  warnings: Reason[];
}

/** One event lifted out of its envelope, before its properties are validated. */
export interface RawEvent {
  name: string;
  /** Time string as sent. */
  time: string;
  online: boolean;
  property: string | null;
  props: Record<string, unknown>;
  meta: unknown;
  /** Block the earlier form declares, to be checked against the name's block. */
  declaredBlock: string | null;
  /** Unknown keys of the data object, preserved. */
  extra: Record<string, unknown>;
}
