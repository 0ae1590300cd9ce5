import { ctx, earlierEnvelope, earlierPage } from '../__fixtures__/envelopes';
import { parseSdk } from './client-fields';
import { normalizeUpload } from './normalize';

/** Envelope quirks of causalfoundry/ios-sdk 0.4.3–1.2.3 (earlier form), gated by its sdk (here 1.1.4). */
const withEnvelope = (overrides: Record<string, unknown>) =>
  normalizeUpload({ ...earlierEnvelope([earlierPage]), sdk: 'ios/1.1.4', ...overrides }, ctx).accepted[0]!;
const oldAppInfo = { id: 'com.example.pharmacy', min_sdk_version: 15, target_sdk_version: 17, version: '2.57', version_code: 2, version_name: '57' };

describe('earlier-form envelope quirks', () => {
  it('parses an rn/ wrapper around the native sdk (sdk_wrapper)', () => {
    expect(parseSdk('rn/ios/1.2.3')).toEqual({ name: 'ios', version: '1.2.3', wrapper: 'rn' });
    expect(parseSdk('ios/1.2.3')).toEqual({ name: 'ios', version: '1.2.3' });
    expect(parseSdk('android_2.0.0')).toEqual({ name: 'android', version: '2.0.0' });
    const a = withEnvelope({ sdk: 'rn/ios/1.2.3' });
    expect(a.event).toMatchObject({ sdk_name: 'ios', sdk_version: '1.2.3', client: { sdk_wrapper: 'rn' } });
    expect(a.warnings).toEqual([
      { path: '$.sdk', rule: 'sdk_wrapper', message: 'rn/ios/1.2.3: the rn wrapper around ios 1.2.3; sdk_name ios, the wrapper kept in client.sdk_wrapper' },
    ]);
    expect(withEnvelope({ sdk: 'ios/1.2.3' }).event.client).not.toHaveProperty('sdk_wrapper');
  });

  it('leaves session_end unset when the s_id end part is before the start part (session_end_before_start)', () => {
    const a = withEnvelope({ s_id: 'user-7_1742205000000_1742203500000' });
    expect(a.event).toMatchObject({ session_id: 'user-7_1742205000000_1742203500000', session_start: 1742205000000, session_end: null });
    expect(a.warnings).toEqual([
      {
        path: '$.s_id',
        rule: 'session_end_before_start',
        message: 'the end part of s_id (1742203500000) is before its start part (1742205000000); session_end left unset',
      },
    ]);
    // End equal to start (before the first background) is an ordinary session.
    const same = withEnvelope({ s_id: 'user-7_1742202000000_1742202000000' });
    expect(same.event).toMatchObject({ session_start: 1742202000000, session_end: 1742202000000 });
    expect(same.warnings).toEqual([]);
  });

  it('reads the <major>.<build> app_info of 0.4.3–1.1.4: the build is the version code (app_version_major_build)', () => {
    const a = withEnvelope({ app_info: oldAppInfo });
    expect(a.event).toMatchObject({ app_version: '2.57', app_version_code: 57, client: { app_info: oldAppInfo } });
    expect(a.warnings).toEqual([
      {
        path: '$.app_info.version',
        rule: 'app_version_major_build',
        message: 'app_info.version "2.57" is <major>.<build> (version_code 2 is the major version); app_version_code is the build 57',
      },
    ]);
    // Only when the three agree; otherwise it is an ordinary two-part version, read as sent, as for the
    // current form (app_version_two_part).
    const other = withEnvelope({ app_info: { ...oldAppInfo, version_code: 3 } });
    expect(other.event).toMatchObject({ app_version: '2.57', app_version_code: 3 });
    // (app_version_two_part is the Kenkai clients' quirk: from the older line it is app_version_shape.)
    expect(other.warnings.map((w) => w.rule)).toEqual(['app_version_shape']);
    // 1.1.8+ sends the spec shape.
    const fixed = withEnvelope({ app_info: { ...oldAppInfo, version: '2.4.1 (57)', version_code: 57, version_name: '2.4.1' } });
    expect(fixed.event).toMatchObject({ app_version: '2.4.1', app_version_code: 57 });
    expect(fixed.warnings).toEqual([]);
  });

  it('from any other client the same envelopes get the spec reading: sdk_shape, session_id_shape, app_version_shape', () => {
    const android = { sdk: 'android_2.0.0' };
    expect(withEnvelope({ ...android, sdk: 'rn/android/2.0.0' }).warnings.map((w) => [w.path, w.rule])).toEqual([['$.sdk', 'sdk_shape']]);
    expect(withEnvelope({ ...android, s_id: 'user-7_1742205000000_1742203500000' }).warnings.map((w) => [w.path, w.rule])).toEqual([
      ['$.s_id', 'session_id_shape'],
    ]);
    const a = withEnvelope({ ...android, app_info: oldAppInfo });
    expect(a.warnings.map((w) => [w.path, w.rule])).toEqual([['$.app_info.version', 'app_version_shape']]);
    expect(a.warnings[0]!.message).toContain('(app_version_major_build), accepted only from those clients');
    // An ios sdk outside 0.4.3–1.2.3 in the earlier form is no known client either.
    expect(withEnvelope({ sdk: 'ios/2.0.0', app_info: oldAppInfo }).warnings.map((w) => w.rule)).toEqual(['app_version_shape']);
  });
});
