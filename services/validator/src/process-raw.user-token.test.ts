import { rawMessage } from './raw-message.fixture';
import { processRawMessage } from './process-raw';

// The gateway's user token headers (docs/keys.md, "User tokens") decide each event: its user's token
// keeps it, another user's or none rejects it under enforce (the rest of the upload is kept) and marks
// it under report; an anonymous visitor's (anon:) event needs no token.
const options = { maxEventChars: 64 * 1024 };
const envelope = (user: string) => ({
  id: user,
  tz: '+05:30',
  internal: { s_id: `${user}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
  data: [
    { time: '2023-11-15 03:43:20.123', name: 'page', property: 'Home', ctx: { __ol: true, path: '/home', title: 'Home', duration: 12.5, render_time: 340 } },
  ],
});
const msg = rawMessage;
const verdict = (headers: Record<string, string>, user: string) => {
  const o = processRawMessage(msg(headers, envelope(user)), options);
  return {
    accepted: o.events.map((e) => e.event.warnings.filter((w) => w.rule.startsWith('user_token')).map((w) => w.rule)),
    rejected: o.rejections.map((r) => [r.kind, r.event_index, r.user_id, r.reasons.map((x) => `${x.path} ${x.rule}`)]),
  };
};

describe('processRawMessage: the user token rule', () => {
  it('enforce: keeps the token’s own user’s events and an anonymous visitor’s; rejects another user’s (mismatch) and any without a token (missing)', () => {
    const sub = { user_token_policy: 'enforce', user_token_sub: 'u1' };
    expect(verdict(sub, 'u1')).toEqual({ accepted: [[]], rejected: [] });
    expect(verdict(sub, 'u2')).toEqual({ accepted: [], rejected: [['schema_violation', 0, 'u2', ['$.data[0] user_token_mismatch']]] });
    const none = { user_token_policy: 'enforce', user_token_problem: 'required' };
    expect(verdict(none, 'u1')).toEqual({ accepted: [], rejected: [['schema_violation', 0, 'u1', ['$.data[0] user_token_missing']]] });
    expect(verdict(none, 'anon:7f3c')).toEqual({ accepted: [[]], rejected: [] });
    // A damaged header never reads as a verified user.
    expect(verdict({ user_token_policy: 'enforce', user_token_problem: 'bogus' }, 'u1').rejected).toHaveLength(1);
  });

  it('report: keeps every event, marking those enforce would reject with the warning user_token_unverified', () => {
    expect(verdict({ user_token_policy: 'report', user_token_sub: 'u1' }, 'u2')).toEqual({ accepted: [['user_token_unverified']], rejected: [] });
    expect(verdict({ user_token_policy: 'report', user_token_problem: 'expired' }, 'u1')).toEqual({ accepted: [['user_token_unverified']], rejected: [] });
    expect(verdict({ user_token_policy: 'report', user_token_sub: 'u1' }, 'u1')).toEqual({ accepted: [[]], rejected: [] });
  });

  it('off (no headers): nothing is checked', () => {
    expect(verdict({}, 'u2')).toEqual({ accepted: [[]], rejected: [] });
  });

  it('applies to the crash upload’s items too', () => {
    const upload = {
      u_id: 'usr_1',
      d_info: { brand: 'Apple', id: 'D-1', model: 'iPhone 14', os: 'iOS', os_ver: '17.4.1' },
      app_info: { id: 'com.example', min_sdk_version: 15, target_sdk_version: 17, version: '2.4.1 (57)', version_code: 57, version_name: '2.4.1' },
      sdk: 'ios/1.2.3',
      data: [{ title: 'T', event_type: 'cart', exception_type: 'E', exception_source: 'SDK', stack_trace: 's', ts: '2025-03-17T12:05:11.482+03:00' }],
    };
    const o = processRawMessage(msg({ payload_kind: 'crash', user_token_policy: 'enforce', user_token_sub: 'someone-else' }, upload), options);
    expect([o.events.length, o.rejections.map((r) => r.reasons.map((x) => x.rule))]).toEqual([0, [['user_token_mismatch']]]);
  });

  it('applies to user catalog records (a person’s profile) of catalog and dimensions uploads; other kinds describe no app user', () => {
    const enforce = { user_token_policy: 'enforce', user_token_sub: 'u-1' };
    const users = [
      { id: 'u-1', timezone: '+05:00' },
      { id: 'u-2', timezone: '+05:00' },
    ];
    const catalog = processRawMessage(msg({ ...enforce, payload_kind: 'catalog:user' }, users), options);
    expect(catalog.catalog.map((c) => c.record.id)).toEqual(['u-1']);
    expect(catalog.rejections.map((r) => [r.event_index, r.reasons.map((x) => `${x.path} ${x.rule}`)])).toEqual([[1, ['$[1].id user_token_mismatch']]]);
    const report = processRawMessage(msg({ user_token_policy: 'report', user_token_problem: 'required', payload_kind: 'catalog:user' }, users), options);
    expect(report.catalog.map((c) => c.warnings.map((w) => w.rule))).toEqual([['user_token_unverified'], ['user_token_unverified']]);
    const dims = processRawMessage(
      msg(
        { ...enforce, payload_kind: 'dimensions' },
        {
          data: [
            { id: 'u-2', type: 'user', kv: { timezone: 'Z' } },
            { id: 'g-1', type: 'chat_group', kv: { name: 'G' } },
          ],
        },
      ),
      options,
    );
    expect(dims.catalog.map((c) => c.record.kind)).toEqual(['chat_group']);
    expect(dims.rejections.map((r) => r.reasons.map((x) => x.rule))).toEqual([['user_token_mismatch']]);
  });
});
