import { ctx, currentEnvelope, earlierEnvelope, identifyLog, pageLog } from '../__fixtures__/envelopes';
import { normalizeUpload } from './normalize';
import { userCatalogFromIdentify } from './catalog-identify';

const identifyWith = (ctxProps: Record<string, unknown>) => ({ ...identifyLog, ctx: { ...identifyLog.ctx, ...ctxProps } });
const events = (...logs: unknown[]) => normalizeUpload(currentEnvelope(logs), ctx).accepted.map((a) => a.event);

describe('userCatalogFromIdentify (spec 2.4: the user catalog supplied with an identify)', () => {
  it('makes a user record from a login carrying user properties; timezone from the envelope', () => {
    const [e] = events(identifyWith({ name: 'Amina', gender: 'female', birth_year: 1990, favourite: 'tea' }));
    expect(userCatalogFromIdentify(e!)).toEqual({
      accepted: {
        record: {
          app_id: 'app-1',
          id: 'user-42',
          kind: 'user',
          received_at: ctx.receivedAt,
          request_id: 'req-1',
          // referral_code stays on the event only (ambiguous meaning); `favourite` is not a user field.
          record: { id: 'user-42', name: 'Amina', timezone: '+05:30', gender: 'female', birth_year: 1990 },
          extra: null,
        },
        warnings: [],
        index: null,
      },
      reasons: [],
    });
    // The event is unchanged: the properties stay its extra.
    expect(e!.props).toEqual({ action: 'login', referral_code: 'REF1', __extra: { name: 'Amina', gender: 'female', birth_year: 1990, favourite: 'tea' } });
  });

  it('a timezone property wins over the envelope tz', () => {
    const [e] = events(identifyWith({ action: 'register', timezone: 'Africa/Nairobi', country: 'Kenya' }));
    expect(userCatalogFromIdentify(e!).accepted?.record.record).toEqual({ id: 'user-42', country: 'Kenya', timezone: 'Africa/Nairobi' });
  });

  it('nothing without user properties, for other actions, or for other events', () => {
    const [plain, logout, page, tzOnly] = events(identifyLog, identifyWith({ action: 'logout', name: 'A' }), pageLog, identifyWith({ timezone: 'UTC' }));
    for (const e of [plain, logout, page, tzOnly]) expect(userCatalogFromIdentify(e!)).toEqual({ accepted: null, reasons: [] });
  });

  it('invalid user properties make no record and a warning; the event stays accepted', () => {
    const [e] = events(identifyWith({ gender: 'f', birth_year: 2999 }));
    const r = userCatalogFromIdentify(e!);
    expect(r.accepted).toBeNull();
    expect(r.reasons.map((p) => [p.path, p.rule])).toEqual([
      ['$.identify.birth_year', 'identify_user_catalog'],
      ['$.identify.gender', 'identify_user_catalog'],
    ]);
  });

  describe('both envelope forms make the same record (the earlier form has no envelope tz)', () => {
    // The same identify, sent by user-7 in each form; the current envelope's s_id is made to match.
    const props = { action: 'register', name: 'Amina', gender: 'female', birth_year: 1990 };
    const current = (tz: string, extra: Record<string, unknown> = {}) =>
      normalizeUpload(
        currentEnvelope([{ time: '2023-11-15 03:43:21.000', __ol: true, name: 'identify', property: 'register', ctx: { ...props, ...extra } }], {
          id: 'user-7',
          tz,
          internal: { s_id: 'user-7_1700000000000_0', sdk: 'ios/1.0.1', a_id: 'com.example.app', a_ver: '1.2.3 (45)', d_id: 'dev-7', os: 'ios' },
        }),
        ctx,
      ).accepted[0]!.event;
    const earlier = (ts: string, extra: Record<string, unknown> = {}) =>
      normalizeUpload(earlierEnvelope([{ block: 'core', ol: true, ts, type: 'identify', props: { ...props, ...extra } }]), ctx).accepted[0]!.event;

    it('without a timezone property: the envelope tz, and Z for the earlier form (its client writes ts in UTC)', () => {
      const fromEarlier = userCatalogFromIdentify(earlier('2023-11-14T22:13:21Z'));
      expect(fromEarlier.reasons).toEqual([]);
      expect(fromEarlier.accepted?.record.record).toEqual({ id: 'user-7', name: 'Amina', timezone: 'Z', gender: 'female', birth_year: 1990 });
      expect(fromEarlier).toEqual(userCatalogFromIdentify(current('Z')));
    });

    it('with a timezone property: the property, in both forms', () => {
      const fromEarlier = userCatalogFromIdentify(earlier('2023-11-15T01:13:21.000+03:00', { timezone: 'Africa/Nairobi' }));
      expect(fromEarlier.accepted?.record.record).toEqual({ id: 'user-7', name: 'Amina', timezone: 'Africa/Nairobi', gender: 'female', birth_year: 1990 });
      expect(fromEarlier).toEqual(userCatalogFromIdentify(current('+03:00', { timezone: 'Africa/Nairobi' })));
    });
  });
});
