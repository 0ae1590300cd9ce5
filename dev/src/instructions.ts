/** What `npm start` prints: where things listen and exactly how to send an event and pull an action. */
export function startInstructions(p: {
  baseUrl: string;
  appId: string;
  sdkKey: string;
  apiKey: string;
  analystKeys: { appId: string; key: string }[];
  clickhouseHttpUrl: string;
  keysFile: string;
  keysCreated: boolean;
  chdbPath: string;
}): string {
  const now = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const localTime = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds(), 3)}`;
  const envelope = {
    id: 'user-1',
    tz: '+00:00',
    internal: { s_id: `user-1_${now.getTime()}_0`, sdk: 'web/1.0.0', a_id: p.appId, a_ver: '1.0.0 (1)', d_id: 'device-1', os: 'web' },
    data: [{ time: localTime, __ol: true, name: 'page', property: 'Home', ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120 } }],
  };
  const action = {
    actions: [
      {
        user_id: 'user-1',
        type: 'message',
        render_method: 'in_app_message',
        delivery_mode: 'one-off',
        content: { title: 'Hello', body: 'Welcome back' },
        expired_at: '0001-01-01T00:00:00Z',
      },
    ],
  };
  const segment = { name: 'active this hour', definition: { event: 'page', within: 'PT1H' } };
  const pull = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' };
  return [
    '',
    'Event platform is running in one process (embedded Kafka-compatible bus, schema registry, ClickHouse via chdb, action store).',
    `  base URL      ${p.baseUrl}   (every public route: /v1/ingest/…, /v1/segments, /v1/campaigns, /v1/actions, /v1/action/pull, /v1/action/sdk/pull, /inspector, /console;`,
    '                and one /healthz, /readyz, /metrics for all parts)',
    `  ClickHouse    ${p.chdbPath} (chdb; database "analytics", table "events")`,
    `  keys          ${p.keysFile}${p.keysCreated ? ' (created now)' : ''}`,
    `    app ${p.appId}: SDK key ${p.sdkKey}`,
    `    app ${p.appId}: API key ${p.apiKey}`,
    ...p.analystKeys.map((a) => `    app ${a.appId}: analyst key ${a.key}   (read-only SQL over its app's rows)`),
    '',
    'Try the demo shop (built on the web library, /sdk/web.js): click around, then watch its events in the inspector;',
    'docs/sdk-web.md ("The demo shop") adds a campaign whose in-app message appears in the shop:',
    `  open ${p.baseUrl}/demo`,
    '',
    `Send an event (SDK key). App ${p.appId} runs in enforce (keys file, apps.${p.appId}.user_tokens): a signed-in user's events carry`,
    "that user's token, which the app's server signs (here the demo shop's, docs/keys.md \"User tokens\"):",
    `  TOKEN=$(curl -s '${p.baseUrl}/demo/user-token?user_id=user-1' | sed 's/.*"token":"\\([^"]*\\)".*/\\1/')`,
    `  curl -s -X POST ${p.baseUrl}/v1/ingest/log -H 'Authorization: Bearer ${p.sdkKey}' -H "X-EVP-User-Token: $TOKEN" -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(envelope)}'`,
    '',
    'See what became of it: the upload answered {"accepted":1,"request_id":"…"} (queued, not yet validated);',
    'ask for the verdict of each event with that request id (SDK or API key), or watch the inspector:',
    `  curl -s ${p.baseUrl}/v1/ingest/requests/REQUEST_ID -H 'Authorization: Bearer ${p.sdkKey}'`,
    `  curl -s '${p.baseUrl}/v1/inspect/events?limit=5' -H 'Authorization: Bearer ${p.apiKey}'`,
    `  open ${p.baseUrl}/inspector in a browser and enter the API key (events and rejections, live)`,
    '',
    'Define a segment (API key): users with a page view in the last hour (user-1 once the event above is in);',
    'then list its members (kept current as events arrive; each entry and exit is a record on segments.membership):',
    `  curl -s -X POST ${p.baseUrl}/v1/segments -H 'Authorization: Bearer ${p.apiKey}' -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(segment)}'`,
    `  curl -s ${p.baseUrl}/v1/segments/SEGMENT_ID/members -H 'Authorization: Bearer ${p.apiKey}'`,
    '',
    'Create an action, then pull it (API key); a one-off action comes back once only:',
    `  curl -s -X POST ${p.baseUrl}/v1/actions -H 'Authorization: Bearer ${p.apiKey}' -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(action)}'`,
    `  curl -s -X POST ${p.baseUrl}/v1/action/pull -H 'Authorization: Bearer ${p.apiKey}' -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(pull)}'`,
    '',
    'Steer it in the console (API key): campaigns with their report drawn, segments over time, SQL, health, keys (docs/console.md):',
    `  open ${p.baseUrl}/console`,
    '',
    'Query with your own ClickHouse tools (ClickHouse HTTP interface; analyst or API key as the password; docs/analytics.md):',
    `  ${p.clickhouseHttpUrl}  and  ${p.baseUrl}/clickhouse/`,
    ...p.analystKeys
      .filter((a) => a.appId === p.appId)
      .map((a) => `  curl -s '${p.clickhouseHttpUrl}/?query=SELECT+name,count()+FROM+events+GROUP+BY+name' -H 'X-ClickHouse-Key: ${a.key}'`),
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
