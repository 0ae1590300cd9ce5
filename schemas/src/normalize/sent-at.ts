import type { RejectionReason } from '@evp/core';
import { parseEventTime } from './time';

/**
 * The upload's `sent_at`: when the device sent it, by the device's clock (docs/data-contract.md,
 * "Clock skew"). With the gateway's `received_at` it measures the device clock's error at upload,
 * which moves every event time of the envelope: `corrected_time = time + received_at − sent_at`
 * (PostHog's `sent_at`, Snowplow's `derived_tstamp`). Accepted as ISO 8601 with an offset (`Z`, as
 * `Date.prototype.toISOString` writes it) or as epoch milliseconds (a JSON integer, what a client
 * holding `Date.now()` has at hand). Never part of the event id: a frozen batch re-sent later
 * differs only in `sent_at`, and must dedupe.
 */
export interface SentAt {
  /** UTC epoch ms by the device clock; null when absent or unreadable. */
  sentAt: number | null;
  /** Set when `sent_at` is present but unreadable (the events are accepted with it). */
  warning?: RejectionReason;
}

/** Epoch ms between 1900 and 2299, the range a time column holds (as event times). */
const MIN_MS = Date.UTC(1900, 0, 1);
const MAX_MS = Date.UTC(2300, 0, 1) - 1;

export function readSentAt(value: unknown, path: string): SentAt {
  if (value === undefined || value === null) return { sentAt: null };
  let ms: number | undefined;
  if (typeof value === 'number') ms = Number.isInteger(value) ? value : undefined;
  // No envelope tz here: a local time without an offset is not a readable instant.
  else if (typeof value === 'string') ms = parseEventTime(value, undefined);
  if (ms !== undefined && ms >= MIN_MS && ms <= MAX_MS) return { sentAt: ms };
  return {
    sentAt: null,
    warning: {
      path: `${path}.sent_at`,
      rule: 'sent_at_format',
      message: 'sent_at must be ISO 8601 with an offset (2026-11-27T03:00:00.000Z) or epoch milliseconds; event times are stored uncorrected',
    },
  };
}

/**
 * The event's time moved by the device clock's error at upload: `time` when there is no `sent_at`,
 * or when the correction would leave the range a time column holds.
 */
export function correctedTime(time: number, receivedAt: number, sentAt: number | null): number {
  if (sentAt === null) return time;
  const corrected = time + receivedAt - sentAt;
  return corrected >= MIN_MS && corrected <= MAX_MS ? corrected : time;
}
