/**
 * The Health section: the app's events stored and records rejected per minute and their freshness
 * p95 (GET /v1/inspect/health), dead letters by consumer group, and every consumer group's lag from /metrics (consumer_lag_*).
 */
export const CLIENT_HEALTH = `
(function () {
  var e = evp;
  var LAG = /^consumer_lag_(messages|seconds)\\{(.*)\\} (\\S+)$/;

  function labels(s) { var out = {}; s.replace(/(\\w+)="([^"]*)"/g, function (_, k, v) { out[k] = v; return ''; }); return out; }

  // Every consumer group's lag (consumer_lag_* on /metrics): a total per group, then a row per group, topic and partition.
  function lag() {
    return fetch('/metrics').then(function (res) { return res.ok ? res.text() : ''; }).then(function (text) {
      var byPartition = {};
      text.split('\\n').forEach(function (line) {
        var m = LAG.exec(line);
        if (!m) return;
        var l = labels(m[2]);
        var k = [l.group, l.topic, l.partition].join('\\u0000');
        byPartition[k] = byPartition[k] || { group: l.group, topic: l.topic, partition: Number(l.partition), messages: 0, seconds: 0 };
        byPartition[k][m[1]] = Number(m[3]);
      });
      var parts = Object.keys(byPartition).map(function (k) { return byPartition[k]; }).sort(function (a, b) {
        return a.group.localeCompare(b.group) || a.topic.localeCompare(b.topic) || a.partition - b.partition;
      });
      var totals = [];
      parts.forEach(function (p) {
        var t = totals[totals.length - 1];
        if (!t || t.group !== p.group) totals.push((t = { group: p.group, partitions: 0, messages: 0, seconds: 0 }));
        t.partitions += 1; t.messages += p.messages; t.seconds = Math.max(t.seconds, p.seconds);
      });
      var host = e.clear(e.el('lag'));
      if (!parts.length) { host.appendChild(e.text('p', 'No lag reported yet (/metrics has no consumer lag gauges).', 'meta')); return; }
      host.appendChild(e.table(['Group', 'Partitions', 'Lag (messages)', 'Largest lag (s)'], totals.map(function (t) {
        return [t.group, String(t.partitions), String(t.messages), t.seconds.toFixed(1)];
      }), 'lag-totals-table'));
      host.appendChild(e.table(['Group', 'Topic', 'Partition', 'Lag (messages)', 'Lag (s)'], parts.map(function (p) {
        return [p.group, p.topic, String(p.partition), String(p.messages), p.seconds.toFixed(1)];
      }), 'lag-table'));
    });
  }

  function intake() {
    return e.api('/v1/inspect/health?minutes=60').then(function (r) {
      var b = e.buckets(r.minutes, 'minute', 60000, 60, ['events', 'rejected', 'freshness_p95_seconds']);
      var sum = function (xs) { return xs.reduce(function (n, x) { return n + (x || 0); }, 0); };
      var c = e.el('intake-chart');
      c.dataset.events = String(sum(b.series[0])); c.dataset.rejected = String(sum(b.series[1]));
      c.setAttribute('aria-label', c.dataset.events + ' events stored and ' + c.dataset.rejected + ' records rejected in the last hour');
      e.chart(c, { type: 'line', data: { labels: b.labels, datasets: [
        { label: 'events / min', data: b.series[0], borderColor: '#1a7f37', pointRadius: 0 },
        { label: 'rejected / min', data: b.series[1], borderColor: '#cf222e', pointRadius: 0 },
      ] }, options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true } } } });
      var f = e.el('freshness-chart');
      var latest = r.minutes.filter(function (m) { return m.freshness_p95_seconds !== null; }).pop();
      f.dataset.latest = latest ? String(latest.freshness_p95_seconds) : '';
      e.el('freshness-now').textContent = latest ? 'Latest minute with events: p95 ' + latest.freshness_p95_seconds.toFixed(2) + ' s from receipt to stored' : 'No events in the last hour.';
      e.chart(f, { type: 'line', data: { labels: b.labels, datasets: [{ label: 'freshness p95 (s)', data: b.series[2], borderColor: '#8250df', pointRadius: 1, spanGaps: true }] },
        options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: 'seconds' } } } } });
      var host = e.clear(e.el('dead-letters'));
      host.appendChild(r.dead_letters.length ? e.table(['Group', 'Dead letters (last hour)'], r.dead_letters.map(function (d) { return [d.group, String(d.count)]; }), 'dead-letter-table') : e.text('p', 'No dead letters in the last hour.', 'meta'));
    });
  }

  e.sections.health = function () { e.every(5000, function () { return Promise.all([intake(), lag()]); }); };
})();
`;
