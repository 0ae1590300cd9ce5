import { KEY_STORAGE } from './shell';
import { percent, pWords, signedPoints, upliftWords, wilsonInterval } from './words';

/**
 * What every console page's script starts with: the key prompt (the key kept in the tab's
 * sessionStorage, sent only to this origin), calls to this origin's API with it, text-only DOM
 * helpers, Chart.js charts, and the report's words (words.ts, embedded as the same functions).
 * Each section's script then registers `evp.sections.<name>`; the last line starts the page's.
 */
export const CLIENT_COMMON = `'use strict';
var evp = (function () {
  var wilsonInterval = ${wilsonInterval.toString()};
  var signedPoints = ${signedPoints.toString()};
  var percent = ${percent.toString()};
  var pWords = ${pWords.toString()};
  var upliftWords = ${upliftWords.toString()};
  var el = function (id) { return document.getElementById(id); };
  var gen = 0;
  function key() { return sessionStorage.getItem(${JSON.stringify(KEY_STORAGE)}) || ''; }
  function status(message, isError) {
    el('status').className = isError ? 'error' : '';
    el('status').textContent = message;
  }
  /** A JSON call to this origin's API with the key; a refusal becomes an Error with the API's message and path. */
  function api(path, init) {
    init = init || {};
    var headers = { Authorization: 'Bearer ' + key() };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, { method: init.method || 'GET', headers: headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }).then(function (res) {
      if (res.status === 204) return null;
      return res.json().then(function (body) {
        if (res.ok) return body;
        var e = new Error((body.error && body.error.message) || ('HTTP ' + res.status));
        e.body = body;
        throw e;
      });
    });
  }
  function text(tag, s, cls) { var n = document.createElement(tag); if (cls) n.className = cls; n.textContent = s === undefined || s === null ? '' : String(s); return n; }
  function clear(node) { node.textContent = ''; return node; }
  function link(href, s) { var a = text('a', s); a.href = href; return a; }
  /** A table of text cells; rows are arrays of strings or nodes. */
  function table(headers, rows, testid) {
    var t = document.createElement('table');
    if (testid) t.dataset.testid = testid;
    var tr = document.createElement('tr');
    headers.forEach(function (h) { tr.appendChild(text('th', h)); });
    var head = document.createElement('thead'); head.appendChild(tr); t.appendChild(head);
    var body = document.createElement('tbody');
    rows.forEach(function (r) {
      var row = document.createElement('tr');
      r.forEach(function (c) { var td = document.createElement('td'); if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? '' : String(c); row.appendChild(td); });
      body.appendChild(row);
    });
    t.appendChild(body);
    return t;
  }
  /** A Chart.js chart on the canvas, replacing the one drawn there before (live pages redraw). */
  function chart(canvas, config) {
    var old = Chart.getChart(canvas);
    if (old) old.destroy();
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    return new Chart(canvas, config);
  }
  /** Hours (or minutes) from \`from\` to now as labels, each bucket's value from rows (0 where absent). */
  function buckets(rows, at, stepMs, count, values) {
    var now = Date.now();
    var last = Math.floor(now / stepMs) * stepMs;
    var byTime = new Map(rows.map(function (r) { return [Date.parse(r[at]), r]; }));
    var out = { labels: [], series: values.map(function () { return []; }) };
    for (var t = last - (count - 1) * stepMs; t <= last; t += stepMs) {
      var d = new Date(t);
      out.labels.push(stepMs >= 3600000 ? d.toISOString().slice(5, 13).replace('T', ' ') + 'h' : d.toISOString().slice(11, 16));
      var r = byTime.get(t);
      values.forEach(function (v, i) { out.series[i].push(r ? (r[v] === null ? null : r[v]) : (v === 'freshness_p95_seconds' ? null : 0)); });
    }
    return out;
  }
  /** Runs fn now and every ms while the page's key is the same; a new key restarts it. */
  function every(ms, fn) {
    var mine = gen;
    function tick() {
      Promise.resolve().then(fn).then(function () {
        if (mine === gen) status('Live: updated ' + new Date().toLocaleTimeString());
      }, function (err) {
        if (mine === gen) status('Not updating: ' + err.message, true);
      }).then(function () { if (mine === gen) setTimeout(tick, ms); });
    }
    tick();
  }
  var sections = {};
  function start() {
    var run = sections[document.body.dataset.section];
    if (!run) return;
    if (key()) el('key').value = key();
    el('connect').addEventListener('submit', function (ev) {
      ev.preventDefault();
      sessionStorage.setItem(${JSON.stringify(KEY_STORAGE)}, el('key').value.trim());
      gen += 1;
      status('Connecting…');
      run();
    });
    if (key()) { gen += 1; run(); }
  }
  return { el: el, api: api, text: text, clear: clear, link: link, table: table, chart: chart, buckets: buckets, every: every, status: status,
    sections: sections, start: start, wilsonInterval: wilsonInterval, signedPoints: signedPoints, percent: percent, pWords: pWords, upliftWords: upliftWords };
})();
`;

export const CLIENT_START = 'evp.start();\n';
