import { consolePage } from '../console';

/**
 * The console's Keys page (docs/console.md#keys): an app's keys by id and role, created, revoked,
 * last used; never a secret (GET /v1/keys has none to give). Same key prompt as the inspector (the
 * API key kept in the tab's sessionStorage under the same name; the console's shell), refreshed every 5 s. Every value is
 * set as text, never as markup.
 */
export const KEYS_HTML = consolePage({
  section: 'keys',
  title: 'Keys · console',
  promptButton: 'Show keys',
  stylesheets: ['/console/keys/keys.css'],
  scripts: ['/console/keys/keys.js'],
  body: `<h2>Keys <span id="app" data-testid="app"></span></h2>
<table data-testid="keys">
  <caption>Keys of the app: rotate or revoke one in the keys file; every service applies the change within seconds (docs/keys.md).</caption>
  <thead><tr><th scope="col">Id</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Last used</th></tr></thead>
  <tbody id="rows"></tbody>
</table>`,
});

export const KEYS_CSS = `h2 span { font-weight: 400; color: #57606a; }
table { border-collapse: collapse; background: #fff; min-width: 640px; }
caption { text-align: left; color: #57606a; font-size: 12px; padding-bottom: 8px; }
th, td { border: 1px solid #d0d7de; padding: 6px 10px; text-align: left; }
th { background: #f6f8fa; font-weight: 600; }
td.id { font-family: ui-monospace, monospace; }
tr.revoked td { color: #6e7781; }
tr.revoked td.state { color: #cf222e; font-weight: 600; }
td.state.active { color: #1a7f37; }
#status.error { color: #cf222e; }
`;
