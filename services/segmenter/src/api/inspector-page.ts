/**
 * The inspector (docs/inspector.md): a page that shows an app's events and rejections live, with
 * their warnings and reasons, and its dead letters (messages a platform consumer could not handle), in the manner of Snowplow Micro's UI and Segment's debugger. It asks for
 * the app's API key (kept in the tab's sessionStorage, sent only to this origin's /v1/inspect API)
 * and polls every second for what arrived since the newest row it has. It is a page of the console
 * (its shell: console/shell.ts).
 */
import { consolePage } from './console';

export const INSPECTOR_HTML = consolePage({
  section: 'inspector',
  title: 'Event inspector · console',
  stylesheets: ['/inspector/inspector.css'],
  scripts: ['/inspector/inspector.js'],
  promptButton: 'Watch',
  promptFields: `<label>User <input id="user" placeholder="user id" data-testid="user"></label>
    <label>Event <input id="name" placeholder="event name" data-testid="name"></label>
    <label>Request <input id="request" placeholder="request id" data-testid="request"></label>`,
  body: `<section>
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
  </section>`,
});

export const INSPECTOR_CSS = `
main { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; padding: 16px 20px; }
ol { list-style: none; padding: 0; margin: 0; }
li { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; }
li.rejection { border-left: 4px solid #cf222e; }
li.event { border-left: 4px solid #1a7f37; }
li.deadletter { border-left: 4px solid #6e7781; }
section.wide { grid-column: 1 / -1; }
pre.payload { white-space: pre-wrap; word-break: break-all; font-size: 12px; margin: 4px 0 0; }
li.event.warned { border-left: 4px solid #bf8700; }
li li.reason { border: none; border-radius: 0; padding: 2px 0; margin: 0; background: none; }
ul.warnings, ul.reasons { padding-left: 0; margin: 4px 0 0; list-style: none; }
.reason { font-family: ui-monospace, monospace; font-size: 12px; }
.rule { font-weight: 600; }
`;

export const INSPECTOR_JS = `'use strict';
(function () {
  var POLL_MS = 1000, KEEP = 200, OVERLAP_MS = 5000;
  var el = function (id) { return document.getElementById(id); };
  var state = { key: sessionStorage.getItem('evp-inspector-key') || '', events: new Map(), rejected: new Map(), deadletters: new Map(), newest: { events: 0, rejected: 0, deadletters: 0 }, timer: null, gen: 0 };
  if (state.key) el('key').value = state.key;

  function text(tag, cls, s) { var n = document.createElement(tag); if (cls) n.className = cls; n.textContent = s; return n; }
  function reasons(list, label) {
    var ul = document.createElement('ul');
    ul.className = label;
    list.forEach(function (r) {
      var li = document.createElement('li');
      li.className = 'reason';
      li.appendChild(text('span', 'rule', r.rule));
      li.appendChild(document.createTextNode(' ' + r.path + ': ' + r.message));
      ul.appendChild(li);
    });
    return ul;
  }
  function render() {
    var events = Array.from(state.events.values()).sort(function (a, b) { return b.received_at.localeCompare(a.received_at) || b.time.localeCompare(a.time); }).slice(0, KEEP);
    var rejected = Array.from(state.rejected.values()).sort(function (a, b) { return b.received_at.localeCompare(a.received_at); }).slice(0, KEEP);
    var ol = el('events'); ol.textContent = '';
    events.forEach(function (e) {
      var li = document.createElement('li');
      li.className = 'event' + (e.warnings.length ? ' warned' : '');
      li.dataset.eventId = e.event_id;
      li.appendChild(text('div', 'name', e.name + (e.sent_name ? ' (sent as ' + e.sent_name + ')' : '')));
      li.appendChild(text('div', 'meta', 'user ' + e.user_id + ' · ' + e.time + ' · request ' + e.request_id + (e.sdk ? ' · ' + e.sdk : '')));
      if (e.warnings.length) li.appendChild(reasons(e.warnings, 'warnings'));
      ol.appendChild(li);
    });
    var rl = el('rejected'); rl.textContent = '';
    rejected.forEach(function (r) {
      var li = document.createElement('li');
      li.className = 'rejection';
      li.dataset.rejectionId = r.rejection_id;
      li.appendChild(text('div', 'name', (r.name || '(unreadable)') + ' · ' + r.kind));
      li.appendChild(text('div', 'meta', 'user ' + (r.user_id || '?') + ' · ' + r.received_at + ' · request ' + r.request_id + (r.event_index === null ? '' : ' · event #' + r.event_index)));
      li.appendChild(reasons(r.reasons, 'reasons'));
      rl.appendChild(li);
    });
    var deadletters = Array.from(state.deadletters.values()).sort(function (a, b) { return b.failed_at.localeCompare(a.failed_at); }).slice(0, KEEP);
    var dl = el('deadletters'); dl.textContent = '';
    deadletters.forEach(function (d) {
      var li = document.createElement('li');
      li.className = 'deadletter';
      li.dataset.deadLetterId = d.dead_letter_id;
      li.appendChild(text('div', 'name', d.source.topic + ' · ' + d.error.kind + (d.replay ? ' · replay #' + d.replay.count : '')));
      li.appendChild(text('div', 'meta', d.failed_at + ' · group ' + d.group + ' · ' + d.processor.name + '/' + d.processor.version + ' · id ' + d.dead_letter_id));
      li.appendChild(text('div', 'reason', d.error.message));
      li.appendChild(text('pre', 'payload', (d.payload_encoding === 'base64' ? '(base64) ' : '') + d.payload + (d.payload_truncated ? '…' : '')));
      dl.appendChild(li);
    });
    el('deadletter-count').textContent = String(state.deadletters.size);
    el('event-count').textContent = String(state.events.size);
    el('rejected-count').textContent = String(state.rejected.size);
  }
  function query(kind) {
    var p = new URLSearchParams();
    if (kind !== 'deadletters') [['user_id', 'user'], ['name', 'name'], ['request_id', 'request']].forEach(function (f) { var v = el(f[1]).value.trim(); if (v) p.set(f[0], v); });
    // Rows can reach ClickHouse a little out of receipt order: ask again for a short overlap, deduplicated by id.
    if (state.newest[kind]) p.set('since', String(state.newest[kind] - OVERLAP_MS));
    p.set('limit', String(KEEP));
    return '/v1/inspect/' + kind + '?' + p.toString();
  }
  function fetchKind(kind, gen) {
    return fetch(query(kind), { headers: { Authorization: 'Bearer ' + state.key } }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error((body.error && body.error.message) || ('HTTP ' + res.status));
        if (gen !== state.gen) return;
        body.data.forEach(function (row) {
          var id = kind === 'events' ? row.event_id : kind === 'rejected' ? row.rejection_id : row.dead_letter_id;
          state[kind].set(id, row);
          state.newest[kind] = Math.max(state.newest[kind], Date.parse(kind === 'deadletters' ? row.failed_at : row.received_at));
        });
      });
    });
  }
  function poll(gen) {
    Promise.all([fetchKind('events', gen), fetchKind('rejected', gen), fetchKind('deadletters', gen)]).then(function () {
      if (gen !== state.gen) return;
      render();
      el('status').className = '';
      el('status').textContent = 'Live: updated ' + new Date().toLocaleTimeString();
    }).catch(function (err) {
      if (gen !== state.gen) return;
      el('status').className = 'error';
      el('status').textContent = 'Not updating: ' + err.message;
    }).then(function () {
      if (gen === state.gen) state.timer = setTimeout(function () { poll(gen); }, POLL_MS);
    });
  }
  el('connect').addEventListener('submit', function (ev) {
    ev.preventDefault();
    state.key = el('key').value.trim();
    sessionStorage.setItem('evp-inspector-key', state.key);
    state.gen += 1;
    clearTimeout(state.timer);
    state.events.clear(); state.rejected.clear(); state.deadletters.clear(); state.newest = { events: 0, rejected: 0, deadletters: 0 };
    render();
    el('status').textContent = 'Connecting…';
    poll(state.gen);
  });
})();
`;
