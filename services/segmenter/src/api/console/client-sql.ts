/**
 * The SQL section: a query over ClickHouse's HTTP interface on this base URL (`/clickhouse/`, the key
 * as X-ClickHouse-Key), its `{name:Type}` parameters as fields, the result as a table and a chart
 * of the first numeric column over the first time column; docs/analytics.md's examples one click away.
 */
export const CLIENT_SQL = `
(function () {
  var e = evp;
  var TIME = /^(Nullable\\()?(Date|DateTime)/, NUMBER = /^(Nullable\\()?(U?Int|Float|Decimal)/;

  function params() {
    var names = [], seen = {};
    var re = /\\{(\\w+):[^}]+\\}/g, m;
    while ((m = re.exec(e.el('sql-query').value))) if (!seen[m[1]]) { seen[m[1]] = true; names.push(m[1]); }
    var host = e.el('sql-params');
    var old = {};
    Array.prototype.forEach.call(host.querySelectorAll('input'), function (i) { old[i.name] = i.value; });
    e.clear(host);
    names.forEach(function (n) {
      var label = e.text('label', n + ' ');
      var input = document.createElement('input');
      input.name = n; input.value = old[n] || ''; input.dataset.testid = 'param-' + n;
      label.appendChild(input); host.appendChild(label);
    });
  }

  function run() {
    var q = new URLSearchParams({ default_format: 'JSON' });
    Array.prototype.forEach.call(e.el('sql-params').querySelectorAll('input'), function (i) { q.set('param_' + i.name, i.value); });
    e.el('sql-status').textContent = 'Running…';
    var key = sessionStorage.getItem('evp-inspector-key') || '';
    return fetch('/clickhouse/?' + q.toString(), { method: 'POST', headers: { 'X-ClickHouse-Key': key }, body: e.el('sql-query').value }).then(function (res) {
      return res.text().then(function (body) {
        if (!res.ok) { e.el('sql-status').textContent = body.trim(); e.el('sql-status').className = 'error'; return; }
        show(JSON.parse(body));
      });
    });
  }

  function show(r) {
    e.el('sql-status').className = '';
    e.el('sql-status').textContent = r.rows + (r.rows === 1 ? ' row' : ' rows') + (r.statistics ? ' in ' + r.statistics.elapsed.toFixed(3) + ' s' : '');
    var cols = r.meta.map(function (m) { return m.name; });
    var out = e.clear(e.el('sql-result'));
    out.appendChild(e.table(cols, r.data.map(function (row) { return cols.map(function (c) { var v = row[c]; return v !== null && typeof v === 'object' ? JSON.stringify(v) : v; }); }), 'sql-table'));
    var time = r.meta.find(function (m) { return TIME.test(m.type); });
    var num = r.meta.find(function (m) { return NUMBER.test(m.type); });
    var canvas = e.el('sql-chart');
    var old = Chart.getChart(canvas); if (old) old.destroy();
    if (!time || !num) { canvas.hidden = true; e.el('sql-chart-note').textContent = 'No chart: the result needs a time column and a numeric column.'; return; }
    canvas.hidden = false;
    e.el('sql-chart-note').textContent = num.name + ' over ' + time.name;
    canvas.dataset.x = time.name; canvas.dataset.y = num.name;
    var rows = r.data.slice().sort(function (a, b) { return String(a[time.name]).localeCompare(String(b[time.name])); });
    e.chart(canvas, { type: 'line', data: { labels: rows.map(function (row) { return String(row[time.name]); }), datasets: [{ label: num.name, data: rows.map(function (row) { return Number(row[num.name]); }), borderColor: '#0969da', pointRadius: 2 }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, title: { display: true, text: num.name } } } } });
  }

  e.sections.sql = function () {
    e.status('Ready: queries run as this key, on its app’s rows only.');
    e.el('sql-query').oninput = params;
    e.el('sql-form').onsubmit = function (ev) { ev.preventDefault(); run(); };
    fetch('/console/assets/sql-examples.json').then(function (res) { return res.json(); }).then(function (examples) {
      var host = e.clear(e.el('sql-examples'));
      examples.forEach(function (x) {
        var b = e.text('button', x.name);
        b.type = 'button'; b.title = x.description; b.dataset.example = x.name;
        b.onclick = function () { e.el('sql-query').value = x.sql; params(); };
        var li = document.createElement('li'); li.appendChild(b); li.appendChild(e.text('span', ' ' + x.description, 'meta')); host.appendChild(li);
      });
    });
    params();
  };
})();
`;
