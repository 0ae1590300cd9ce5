/** The smallest good upload for the e2e app (one page event) and an SDK pull for the same user. */
export const oneEventEnvelope = {
  id: 'user-1',
  tz: '+00:00',
  internal: { s_id: 'user-1_1700000000000_0', sdk: 'web/1.0.0', a_id: 'e2e-app', a_ver: '1.0.0 (1)', d_id: 'device-1', os: 'web' },
  data: [{ time: '2023-11-15 03:43:20.123', __ol: true, name: 'page', property: 'Home', ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120 } }],
};

export const sdkPullBody = { user_id: 'user-1', type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' };
