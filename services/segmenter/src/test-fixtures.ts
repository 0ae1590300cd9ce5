import type { CanonicalEvent, RejectedRecord } from '@evp/schemas';

/** Shared test values: a canonical page event and a typed rejected record, with known row values. */
export const pageEvent: CanonicalEvent = {
  event_id: 'e1f0c2d3a4b5c6d7e8f90a1b2c3d4e5f',
  app_id: 'app-1',
  user_id: 'user-42',
  session_id: 'user-42_1709251200000_1709251260000',
  session_start: 1709251200000,
  session_end: 1709251260000,
  device_id: 'dev-9',
  os: 'android',
  sdk_name: 'android',
  sdk_version: '2.1.0',
  app_version: '1.4.2 (142)',
  app_version_code: 142,
  tz: '+03:00',
  block: 'core',
  name: 'page',
  sent_name: null,
  property: 'Home',
  time: 1709251212345,
  online: true,
  received_at: 1709251300001,
  request_id: 'req-7',
  envelope: 'current',
  props: { path: '/home', title: 'Home', duration: 12.5, render_time: 340 },
  meta: { campaign: 'spring', n: 1 },
  client: null,
};

export const rejectedRecord: RejectedRecord = {
  rejection_id: '0123456789abcdef0123456789abcdef',
  kind: 'schema_violation',
  errors: [
    { path: '$.data[0].ctx.rate_value', rule: 'range', message: 'must be at most 5' },
    { path: '$.data[0].ctx.type', rule: 'enum', message: 'must be one of order, item, …' },
  ],
  payload: '{"name":"rate","ctx":{"rate_value":9}}',
  payload_truncated: false,
  app_id: 'app-1',
  request_id: 'req-8',
  key_id: 'sdk-1',
  received_at: 1709251300001,
  failed_at: 1709251300100,
  processor: 'evp-validator/0.1',
  event_count: 1,
  envelope_index: 0,
  event_index: 0,
  event_name: 'rate',
  payload_kind: 'log',
  source: 'ingest.raw/1/77',
};

