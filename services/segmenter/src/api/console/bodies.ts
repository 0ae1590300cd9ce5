/** Each console page's static markup (the scripts fill it, as text). */

export const CAMPAIGNS_BODY = `<h1>Campaigns</h1>
<section id="campaigns" aria-live="polite"></section>`;

export const CAMPAIGN_BODY = `<p><a href="/console/campaigns">← Campaigns</a></p>
<h1><span id="campaign-name" data-testid="campaign-name"></span> <span id="campaign-state" data-testid="campaign-state"></span></h1>
<p id="campaign-meta" class="meta"></p>
<p class="buttons">
  <button type="button" id="state-resume" data-testid="state-resume">Resume</button>
  <button type="button" id="state-pause" data-testid="state-pause">Pause</button>
  <button type="button" id="state-end" data-testid="state-end">End</button>
</p>
<div class="grid">
  <section class="wide">
    <h2>Report</h2>
    <p id="report-meta" class="meta"></p>
    <div id="srm" data-testid="srm"></div>
    <div id="uplifts" data-testid="uplifts" aria-live="polite"></div>
    <div id="readings" data-testid="readings"></div>
    <div id="guardrails" data-testid="guardrails"></div>
    <div class="charts">
      <figure>
        <figcaption>Conversion rate of each group, with its 95% interval</figcaption>
        <div class="chart"><canvas id="rate-chart" data-testid="rate-chart" role="img" aria-label="Conversion rate of each group with its 95% interval; the same numbers are listed below"></canvas></div>
        <ul id="rates" data-testid="rates"></ul>
      </figure>
      <figure>
        <figcaption>Funnel per group: audience → created → delivered → shown → open → converted</figcaption>
        <div class="chart"><canvas id="funnel-chart" data-testid="funnel-chart" role="img" aria-label="Funnel per group; the same numbers are in the table below"></canvas></div>
        <div id="funnel-table"></div>
      </figure>
    </div>
    <section id="allocation" data-testid="allocation" hidden>
      <h3>Adaptive allocation</h3>
      <div id="epoch-weighted" data-testid="epoch-weighted"></div>
      <p class="meta" data-testid="epoch-weighted-explanation">Epoch-weighted: the weights moved between epochs, and pooling users across epochs of different weights is biased (a variant's pooled rate leans to the epochs where it had more users), so this estimate weights each epoch's difference, variant minus control among the users first assigned in it, by that epoch's share of the users. Matured users only; a 95% interval valid if read once.</p>
      <figure>
        <figcaption>Each variant's share (%) of the treated users over time</figcaption>
        <div class="chart"><canvas id="allocation-chart" data-testid="allocation-chart" role="img"></canvas></div>
      </figure>
    </section>
  </section>
  <section>
    <h2>Preview for a user</h2>
    <form id="preview"><label>User <input id="preview-user" required data-testid="preview-user"></label> <button type="submit" data-testid="preview-run">Preview</button></form>
    <pre id="preview-result" data-testid="preview-result"></pre>
  </section>
  <section>
    <h2>Document</h2>
    <pre id="campaign-document" data-testid="campaign-document"></pre>
  </section>
</div>`;

export const SEGMENTS_BODY = `<h1>Segments</h1>
<section id="segments" aria-live="polite"></section>`;

export const SEGMENT_BODY = `<p><a href="/console/segments">← Segments</a></p>
<h1 id="segment-name" data-testid="segment-name"></h1>
<p id="segment-meta" class="meta"></p>
<div class="grid">
  <section class="wide">
    <h2>Membership over time: entries and exits per hour (48 h)</h2>
    <div class="chart"><canvas id="history-chart" data-testid="history-chart" role="img"></canvas></div>
  </section>
  <section>
    <h2>Definition</h2>
    <pre id="segment-definition" data-testid="segment-definition"></pre>
    <h2>Edit</h2>
    <textarea id="definition-editor" data-testid="definition-editor" rows="12" spellcheck="false" aria-label="Definition (JSON)"></textarea>
    <p id="preview-count" data-testid="preview-count" aria-live="polite"></p>
    <ul id="preview-problems" data-testid="preview-problems" class="problems"></ul>
    <button type="button" id="definition-save" data-testid="definition-save">Save</button>
  </section>
  <section>
    <h2>Members</h2>
    <ol id="members" data-testid="members"></ol>
    <p><button type="button" id="members-prev">Previous</button> <span id="members-page" class="meta"></span> <button type="button" id="members-next" data-testid="members-next">Next</button></p>
  </section>
</div>`;

export const SQL_BODY = `<h1>SQL</h1>
<p class="meta">Read-only SQL over ClickHouse's HTTP interface (<code>/clickhouse/</code>), as the key above: it sees its app's rows only (docs/analytics.md).</p>
<div class="grid">
  <section>
    <form id="sql-form">
      <textarea id="sql-query" data-testid="sql-query" rows="12" spellcheck="false" aria-label="Query">SELECT toStartOfHour(received_at) AS hour, count() AS events FROM events GROUP BY hour ORDER BY hour</textarea>
      <div id="sql-params" class="params"></div>
      <button type="submit" data-testid="sql-run">Run</button>
    </form>
    <p id="sql-status" data-testid="sql-status" role="status"></p>
  </section>
  <section>
    <h2>Examples from docs/analytics.md</h2>
    <ul id="sql-examples" data-testid="sql-examples" class="examples"></ul>
  </section>
  <section class="wide">
    <p id="sql-chart-note" class="meta"></p>
    <div class="chart"><canvas id="sql-chart" data-testid="sql-chart" role="img" aria-label="The first numeric column over the first time column; the table below has the numbers"></canvas></div>
    <div id="sql-result" class="scroll"></div>
  </section>
</div>`;

export const HEALTH_BODY = `<h1>Health</h1>
<div class="grid">
  <section class="wide">
    <h2>Events stored and records rejected per minute (last hour)</h2>
    <div class="chart"><canvas id="intake-chart" data-testid="intake-chart" role="img"></canvas></div>
  </section>
  <section>
    <h2>Freshness p95: receipt to stored</h2>
    <p id="freshness-now" data-testid="freshness-now"></p>
    <div class="chart"><canvas id="freshness-chart" data-testid="freshness-chart" role="img" aria-label="Freshness p95 per minute"></canvas></div>
  </section>
  <section>
    <h2>Dead letters by group</h2>
    <div id="dead-letters" data-testid="dead-letters"></div>
  </section>
  <section class="wide">
    <h2>Consumer lag: every group, then each of its partitions</h2>
    <div id="lag" data-testid="lag"></div>
  </section>
</div>`;

/** The inspector's filters, in the key prompt after the key (docs/inspector.md). */
export const INSPECTOR_PROMPT = `<label>User <input id="user" placeholder="user id" data-testid="user"></label>
    <label>Event <input id="name" placeholder="event name" data-testid="name"></label>
    <label>Request <input id="request" placeholder="request id" data-testid="request"></label>`;

export const INSPECTOR_BODY = `<section>
    <h2>Events <span id="event-count" data-testid="event-count">0</span></h2>
    <ol id="events" data-testid="events"></ol>
  </section>
  <section>
    <h2>Rejections <span id="rejected-count" data-testid="rejected-count">0</span></h2>
    <ol id="rejected" data-testid="rejected"></ol>
  </section>
  <section class="wide">
    <h2>Dead letters <span id="deadletter-count" data-testid="deadletter-count">0</span></h2>
    <p class="meta">Messages of this app a platform consumer could not handle (not filtered by user, event or request). Replay: <code>npm run deadletters -- replay --id ID</code>.</p>
    <ol id="deadletters" data-testid="deadletters"></ol>
  </section>`;

/**
 * The Keys page (docs/console.md#keys): an app's keys by id and role, created, revoked, last used;
 * then its user token policy, signing keys and the last hour's outcomes. Never a secret.
 */
export const KEYS_BODY = `<h2>Keys <span id="app" data-testid="app"></span></h2>
<table data-testid="keys">
  <caption>Keys of the app: rotate or revoke one in the keys file; every service applies the change within seconds (docs/keys.md).</caption>
  <thead><tr><th scope="col">Id</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Last used</th></tr></thead>
  <tbody id="rows"></tbody>
</table>
<section class="user-tokens">
  <h2>User tokens <span id="token-policy" data-testid="token-policy"></span></h2>
  <p id="token-sentence" data-testid="token-sentence"></p>
  <div id="token-keys" data-testid="token-keys"></div>
  <h3>Calls per outcome, last hour</h3>
  <div class="chart"><canvas id="outcomes-chart" data-testid="outcomes-chart" role="img"></canvas></div>
  <div id="outcomes" data-testid="outcomes"></div>
</section>`;

export const PRIVACY_BODY = `<h1>Privacy</h1>
<section>
  <h2>Erasures <span id="erasure-progress" data-testid="erasure-progress"></span></h2>
  <form id="erase-form" data-testid="erase-form" autocomplete="off">
    <label>User ids (one a line) <textarea id="erase-users" data-testid="erase-users" rows="2"></textarea></label>
    <label>Patient ids (one a line) <textarea id="erase-patients" data-testid="erase-patients" rows="2"></textarea></label>
    <button type="submit" data-testid="erase">Erase…</button>
  </form>
  <p id="erase-confirm" data-testid="erase-confirm" hidden><span id="erase-question" data-testid="erase-question"></span>
    <button type="button" id="erase-yes" data-testid="erase-yes">Erase them</button> <button type="button" id="erase-no">Cancel</button></p>
  <div id="erasures" data-testid="erasures"></div>
</section>
<section>
  <h2>Exports</h2>
  <form id="export-form" data-testid="export-form" autocomplete="off">
    <label>Kind <select id="export-kind" data-testid="export-kind"><option value="user_id">user</option><option value="patient_id">patient</option></select></label>
    <label>Id <input id="export-id" data-testid="export-id" required></label>
    <button type="submit" data-testid="export">Export</button>
  </form>
  <div id="exports" data-testid="exports"></div>
</section>
<section>
  <h2>Suppressions</h2>
  <p class="meta">Listed by keyed hash (the ids are not kept): lift one by its user id.</p>
  <form id="lift-form" data-testid="lift-form" autocomplete="off">
    <label>User id <input id="lift-id" data-testid="lift-id" required></label>
    <button type="submit" data-testid="lift">Lift…</button>
  </form>
  <p id="lift-confirm" data-testid="lift-confirm" hidden><span id="lift-question" data-testid="lift-question"></span>
    <button type="button" id="lift-yes" data-testid="lift-yes">Lift it</button> <button type="button" id="lift-no">Cancel</button></p>
  <div id="suppressions" data-testid="suppressions"></div>
</section>`;

export const AUDIT_BODY = `<h1>Access log <span id="chain" data-testid="chain"></span></h1>
<form id="audit-filters" data-testid="audit-filters" autocomplete="off">
  <label>Route <input id="f-route" data-testid="f-route" placeholder="GET /v1/inspect/events"></label>
  <label>Role <input id="f-role" data-testid="f-role" placeholder="api"></label>
  <label>Key id <input id="f-key" data-testid="f-key"></label>
  <label>Person <input id="f-person" data-testid="f-person"></label>
  <label>From <input id="f-from" data-testid="f-from" type="datetime-local"></label>
  <label>To <input id="f-to" data-testid="f-to" type="datetime-local"></label>
  <button type="submit" data-testid="filter">Filter</button>
</form>
<div id="reads" data-testid="reads"></div>
<p><button type="button" id="newest" data-testid="newest">Newest</button> <button type="button" id="older" data-testid="older" disabled>Older</button></p>`;
