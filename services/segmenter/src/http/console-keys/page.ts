import { PAGE_FRAME_CSS } from '../page-asset';
/**
 * The console's Keys page (docs/console.md#keys): an app's keys by id and role, created, revoked,
 * last used; never a secret (GET /v1/keys has none to give). Same key prompt as the inspector (the
 * API key kept in the tab's sessionStorage under the same name), refreshed every 5 s. Every value is
 * set as text, never as markup. Paths are relative, so the page works under a base URL's path.
 */
export const KEYS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keys · console</title>
<link rel="stylesheet" href="keys/keys.css">
</head>
<body>
<header>
  <h1>Keys <span id="app" data-testid="app"></span></h1>
  <form id="connect" autocomplete="off">
    <label>API key <input id="key" type="password" required placeholder="the app's API key" data-testid="key"></label>
    <button type="submit" data-testid="connect">Show keys</button>
  </form>
  <p id="status" role="status" data-testid="status">Enter the app's API key to list its keys.</p>
</header>
<main>
  <table data-testid="keys">
    <caption>Keys of the app: rotate or revoke one in the keys file; every service applies the change within seconds (docs/keys.md).</caption>
    <thead><tr><th scope="col">Id</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Last used</th></tr></thead>
    <tbody id="rows"></tbody>
  </table>
</main>
<script src="keys/keys.js"></script>
</body>
</html>
`;

export const KEYS_CSS = `${PAGE_FRAME_CSS}h1 span { font-weight: 400; color: #57606a; }
form { display: flex; gap: 8px; align-items: end; }
label { display: flex; flex-direction: column; font-size: 12px; color: #57606a; }
input { font: inherit; padding: 4px 6px; min-width: 220px; }
main { padding: 16px 20px; }
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
