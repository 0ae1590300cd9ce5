/** Sample uploads in both forms, shaped like the spec's samples. */
export const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: 1_700_000_100_000, keyId: 'k-sdk' };

export function currentEnvelope(data: unknown[], overrides: Record<string, unknown> = {}) {
  return {
    id: 'user-42',
    tz: '+05:30',
    internal: {
      s_id: 'user-42_1700000000000_0',
      sdk: 'android/2.4.1',
      a_id: 'com.example.app',
      a_ver: '1.2.3 (45)',
      d_id: 'device-9',
      os: 'android',
    },
    data,
    ...overrides,
  };
}

export const pageLog = {
  time: '2023-11-15 03:43:20.123',
  name: 'page',
  property: 'Home',
  ctx: { __ol: true, path: '/home', title: 'Home', duration: 12.5, render_time: 340 },
};

export const identifyLog = {
  time: '2023-11-15 03:43:21.000',
  __ol: false,
  name: 'identify',
  property: 'login',
  ctx: { action: 'login', referral_code: 'REF1' },
};

export function earlierEnvelope(data: unknown[]) {
  return {
    s_id: 'user-7_1700000000000_1700000600000',
    u_id: 'user-7',
    d_info: { brand: 'Acme', id: 'dev-7', model: 'A1', os: 'android', os_ver: '14' },
    app_info: { id: 'com.example.app', min_sdk_version: 24, target_sdk_version: 34, version_code: 45, version_name: '1.2.3', version: '1.2.3 (45)' },
    sdk: 'android_2.0.0',
    up: 512,
    dn: 2048,
    data,
  };
}

export const earlierPage = {
  block: 'core',
  ol: true,
  ts: '2023-11-15T03:43:20.123+05:30',
  type: 'page',
  props: { path: '/cart', title: 'Cart', duration: 3, render_time: 20, meta: { ab: 'b' } },
};
