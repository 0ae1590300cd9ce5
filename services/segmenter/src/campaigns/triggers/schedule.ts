import { parseTimestamp } from '@evp/segment-language';
import { durationMs } from '../deliver';
import type { StoredCampaign } from '../source';

/**
 * The latest occurrence of a schedule trigger at or before `now` (epoch ms), if any:
 * - `at`: that instant;
 * - `every`: the multiples of the interval since `start_at` (else the campaign's creation); months
 *   count as 30 days (validation bounds the interval below by an hour).
 * The timer (worker.ts) produces an occurrence no older than its catch-up bound once per process.
 */
export function latestOccurrence(c: StoredCampaign, now: number): number | undefined {
  const t = c.document.trigger;
  if (!('schedule' in t)) return undefined;
  if ('at' in t.schedule) {
    const at = parseTimestamp(t.schedule.at);
    return typeof at === 'number' && at <= now ? at : undefined;
  }
  const start = c.document.start_at === undefined ? c.created_at : (parseTimestamp(c.document.start_at) as number);
  const every = durationMs(t.schedule.every);
  if (!(every > 0) || now < start) return undefined;
  return start + Math.floor((now - start) / every) * every;
}
