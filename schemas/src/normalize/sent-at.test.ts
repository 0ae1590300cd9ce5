import { ctx, currentEnvelope, earlierEnvelope, earlierPage, pageLog } from '../__fixtures__/envelopes';
import { normalizeUpload } from './normalize';
import { correctedTime, readSentAt } from './sent-at';

// pageLog's time: 2023-11-15 03:43:20.123 at +05:30. ctx.receivedAt: 2023-11-14T22:15:00.000Z.
const PAGE_TIME = 1_700_000_000_123;
const RECEIVED = 1_700_000_100_000;
// A device clock 1 h 0.5 s behind: it sent the upload at 21:14:59.500 by its own clock.
const SLOW_SENT_AT = '2023-11-14T21:14:59.500Z';
const SLOW_SENT_AT_MS = 1_699_996_499_500;

describe('readSentAt', () => {
  it('reads ISO 8601 with an offset and epoch milliseconds; absent or null is no sent_at', () => {
    expect(readSentAt(SLOW_SENT_AT, '$')).toEqual({ sentAt: SLOW_SENT_AT_MS });
    expect(readSentAt('2023-11-15T02:44:59.500+05:30', '$')).toEqual({ sentAt: SLOW_SENT_AT_MS });
    expect(readSentAt(SLOW_SENT_AT_MS, '$')).toEqual({ sentAt: SLOW_SENT_AT_MS });
    expect(readSentAt(undefined, '$')).toEqual({ sentAt: null });
    expect(readSentAt(null, '$')).toEqual({ sentAt: null });
  });

  it.each([['yesterday'], ['2023-11-14 21:14:59.500'], [1.5], [true], [{}], [Date.UTC(2300, 0, 1)]])(
    'names %j unreadable with the warning sent_at_format at the envelope path',
    (value) => {
      expect(readSentAt(value, '$[1]')).toEqual({
        sentAt: null,
        warning: {
          path: '$[1].sent_at',
          rule: 'sent_at_format',
          message: 'sent_at must be ISO 8601 with an offset (2026-11-27T03:00:00.000Z) or epoch milliseconds; event times are stored uncorrected',
        },
      });
    },
  );

  it('corrects by received_at − sent_at, and leaves a time the correction would push out of range', () => {
    expect(correctedTime(PAGE_TIME, RECEIVED, SLOW_SENT_AT_MS)).toBe(1_700_003_600_623);
    expect(correctedTime(PAGE_TIME, RECEIVED, null)).toBe(PAGE_TIME);
    // A clock reset to 1970 at send: the event times (also 1970) move to the receive time.
    expect(correctedTime(5_000, RECEIVED, 10_000)).toBe(RECEIVED - 5_000);
    expect(correctedTime(Date.UTC(1900, 0, 1), RECEIVED, RECEIVED + 1)).toBe(Date.UTC(1900, 0, 1));
  });
});

describe('normalizeUpload with sent_at', () => {
  it('stores sent_at and corrected_time beside the device time, in the current form', () => {
    const r = normalizeUpload(currentEnvelope([pageLog], { sent_at: SLOW_SENT_AT }), ctx);
    expect(r.rejected).toEqual([]);
    const e = r.accepted[0]!.event;
    expect([e.time, e.received_at, e.sent_at, e.corrected_time, e.warnings]).toEqual([PAGE_TIME, RECEIVED, SLOW_SENT_AT_MS, 1_700_003_600_623, []]);
    // sent_at is a known envelope key, not an extra kept in client.
    expect(e.client).toEqual({ declared_app_id: 'com.example.app' });
  });

  it('does the same in the earlier form, with epoch milliseconds', () => {
    const r = normalizeUpload({ ...earlierEnvelope([earlierPage]), sent_at: SLOW_SENT_AT_MS }, ctx);
    const e = r.accepted[0]!.event;
    expect([e.time, e.sent_at, e.corrected_time, e.warnings]).toEqual([PAGE_TIME, SLOW_SENT_AT_MS, 1_700_003_600_623, []]);
    expect((e.client as Record<string, unknown>).envelope_extra).toBeUndefined();
  });

  it('applies each envelope’s own sent_at in an array of envelopes', () => {
    const r = normalizeUpload([currentEnvelope([pageLog], { sent_at: SLOW_SENT_AT }), currentEnvelope([pageLog])], ctx);
    expect(r.accepted.map((a) => a.event.corrected_time)).toEqual([1_700_003_600_623, PAGE_TIME]);
  });

  it('keeps the event id: a frozen batch re-sent later differs only in sent_at', () => {
    const first = normalizeUpload(currentEnvelope([pageLog], { sent_at: '2023-11-14T22:14:59.000Z' }), ctx).accepted[0]!.event;
    const resent = normalizeUpload(currentEnvelope([pageLog], { sent_at: '2023-11-14T22:20:59.000Z' }), { ...ctx, receivedAt: RECEIVED + 360_000 }).accepted[0]!
      .event;
    const unsent = normalizeUpload(currentEnvelope([pageLog]), ctx).accepted[0]!.event;
    expect(resent.event_id).toBe(first.event_id);
    expect(unsent.event_id).toBe(first.event_id);
    // Both uploads measure the same 1 s error, so both correct to the same time.
    expect([first.corrected_time, resent.corrected_time]).toEqual([PAGE_TIME + 1_000, PAGE_TIME + 1_000]);
  });

  it('accepts the events of an unreadable sent_at uncorrected, each with the warning', () => {
    const r = normalizeUpload(currentEnvelope([pageLog, pageLog], { sent_at: 'soon' }), ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted.map((a) => [a.event.sent_at, a.event.corrected_time, a.warnings.map((w) => `${w.rule} ${w.path}`)])).toEqual([
      [null, PAGE_TIME, ['sent_at_format $.sent_at']],
      [null, PAGE_TIME, ['sent_at_format $.sent_at']],
    ]);
  });

  it('reads a flat body’s sent_at too, without keeping it among the body’s extras', () => {
    const flat = {
      sent_at: SLOW_SENT_AT,
      data: [
        { u_id: 'u-1', d_id: 'd-1', os: 'android', ol: true, ts: '2023-11-14T22:13:20.123Z', type: 'identify', block: 'core', props: { action: 'register' } },
      ],
    };
    const r = normalizeUpload(flat, ctx);
    expect(r.rejected).toEqual([]);
    const e = r.accepted[0]!.event;
    expect([e.sent_at, e.corrected_time, e.client]).toEqual([SLOW_SENT_AT_MS, 1_700_003_600_623, null]);
  });
});
