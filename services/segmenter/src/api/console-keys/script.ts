/** The Keys page's script (page.ts says what it shows). */
export const KEYS_JS = `'use strict';
(function () {
  var POLL_MS = 5000, STORE = 'evp-inspector-key';
  var el = function (id) { return document.getElementById(id); };
  var state = { key: sessionStorage.getItem(STORE) || '', timer: null, gen: 0 };
  if (state.key) el('key').value = state.key;

  function cell(row, cls, s, title) {
    var td = document.createElement('td');
    td.className = cls;
    td.textContent = s;
    if (title) td.title = title;
    row.appendChild(td);
  }
  function ago(iso, now) {
    var s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    if (s < 60) return s + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    if (s < 86400) return Math.floor(s / 3600) + ' h ago';
    return Math.floor(s / 86400) + ' days ago';
  }
  function render(body) {
    var now = Date.now();
    el('app').textContent = '· ' + body.app_id;
    var tbody = el('rows');
    tbody.textContent = '';
    body.data.forEach(function (k) {
      var revoked = k.revoked_at !== null && Date.parse(k.revoked_at) <= now;
      var tr = document.createElement('tr');
      tr.className = revoked ? 'revoked' : 'active';
      tr.dataset.keyId = k.id;
      cell(tr, 'id', k.id);
      cell(tr, 'role', k.role);
      cell(tr, 'created', k.created_at || '—');
      cell(tr, 'state' + (revoked ? '' : ' active'), revoked ? 'revoked ' + k.revoked_at : k.revoked_at ? 'revokes at ' + k.revoked_at : 'active');
      cell(tr, 'last-used', k.last_used_at ? ago(k.last_used_at, now) : 'never', k.last_used_at || '');
      tbody.appendChild(tr);
    });
  }
  function poll(gen) {
    fetch('../v1/keys', { headers: { Authorization: 'Bearer ' + state.key } }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error((body.error && (body.error.code + ': ' + body.error.message)) || ('HTTP ' + res.status));
        if (gen !== state.gen) return;
        render(body);
        el('status').className = '';
        el('status').textContent = body.data.length + ' keys · updated ' + new Date().toLocaleTimeString();
      });
    }).catch(function (err) {
      if (gen !== state.gen) return;
      el('status').className = 'error';
      el('status').textContent = 'Not updating: ' + err.message;
    }).then(function () {
      if (gen === state.gen) state.timer = setTimeout(function () { poll(gen); }, POLL_MS);
    });
  }
  function connect() {
    state.key = el('key').value.trim();
    sessionStorage.setItem(STORE, state.key);
    state.gen += 1;
    clearTimeout(state.timer);
    el('status').textContent = 'Connecting…';
    poll(state.gen);
  }
  el('connect').addEventListener('submit', function (ev) { ev.preventDefault(); connect(); });
  if (state.key) connect();
})();
`;
