/**
 * The Campaigns section: the list (state, actions created per hour as a sparkline) and a campaign's
 * page (document, state buttons, preview for a user, the report as pictures and words). Both poll.
 */
export const CLIENT_CAMPAIGNS = `
(function () {
  var e = evp;
  var COLORS = ['#6e7781', '#0969da', '#1a7f37', '#bf8700', '#8250df', '#cf222e'];
  var STAGES = [['audience', 'audience'], ['created', 'created'], ['delivered', 'delivered'], ['shown', 'shown'], ['open', 'open'], ['converted', 'converted']];

  function list() {
    e.every(5000, function () {
      return Promise.all([e.api('/v1/campaigns'), e.api('/v1/campaigns/activity?hours=24')]).then(function (r) {
        var campaigns = r[0].data, activity = r[1].data;
        var host = e.clear(e.el('campaigns'));
        if (campaigns.length === 0) { host.appendChild(e.text('p', 'No campaigns yet: create one with POST /v1/campaigns (docs/campaigns.md).', 'meta')); return; }
        var rows = campaigns.map(function (c) {
          var mine = activity.filter(function (a) { return a.campaign_id === c.id; });
          var b = e.buckets(mine, 'hour', 3600000, 24, ['created']);
          var total = b.series[0].reduce(function (n, x) { return n + x; }, 0);
          var box = document.createElement('div'); box.className = 'spark';
          var canvas = document.createElement('canvas');
          canvas.dataset.testid = 'sparkline'; canvas.dataset.created = String(total);
          canvas.setAttribute('role', 'img');
          canvas.setAttribute('aria-label', total + ' actions created in the last 24 hours');
          box.appendChild(canvas);
          e.chart(canvas, { type: 'line', data: { labels: b.labels, datasets: [{ data: b.series[0], borderColor: '#0969da', borderWidth: 1.5, pointRadius: 0, fill: false }] },
            options: { plugins: { legend: { display: false }, tooltip: { enabled: false } }, scales: { x: { display: false }, y: { display: false, beginAtZero: true } } } });
          var state = e.text('span', c.state, 'state state-' + c.state);
          return [e.link('/console/campaigns/' + encodeURIComponent(c.id), c.name), state, String(c.version), c.updated_at, e.text('span', String(total)), box];
        });
        var t = e.table(['Campaign', 'State', 'Version', 'Updated', 'Created (24 h)', 'Actions created per hour'], rows, 'campaign-list');
        Array.prototype.forEach.call(t.tBodies[0].rows, function (tr, i) { tr.dataset.campaignId = campaigns[i].id; tr.dataset.testid = 'campaign-row'; });
        host.appendChild(t);
      });
    });
  }

  function funnel(report) {
    var groups = [['Control', report.control]].concat(report.variants.map(function (v) { return ['Variant ' + v.variant, v]; }));
    var value = function (g, s) { return s === 'shown' || s === 'open' ? g.responses[s] : g[s] === null ? 0 : g[s]; };
    e.chart(e.el('funnel-chart'), {
      type: 'bar',
      data: { labels: STAGES.map(function (s) { return s[1]; }), datasets: groups.map(function (g, i) { return { label: g[0], data: STAGES.map(function (s) { return value(g[1], s[0]); }), backgroundColor: COLORS[i % COLORS.length] }; }) },
      options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: 'users / runs' } } } },
    });
    e.clear(e.el('funnel-table')).appendChild(e.table(['Group'].concat(STAGES.map(function (s) { return s[1]; })), groups.map(function (g) { return [g[0]].concat(STAGES.map(function (s) { return String(value(g[1], s[0])); })); }), 'funnel'));
  }

  function rates(report) {
    var groups = [['control', 'Control', report.control]].concat(report.variants.map(function (v) { return ['variant-' + v.variant, 'Variant ' + v.variant, v]; }));
    var list = e.clear(e.el('rates'));
    var points = [], bars = [];
    groups.forEach(function (g) {
      var ci = g[2].converted === null ? null : e.wilsonInterval(g[2].converted, g[2].audience);
      var li = e.text('li', g[1] + ': ' + (g[2].conversion_rate === null ? 'no conversion rate (no goal or no audience)' : e.percent(g[2].conversion_rate) + ' converted (' + g[2].converted + ' of ' + g[2].audience + '), 95% CI ' + e.percent(ci[0]) + ' to ' + e.percent(ci[1])));
      li.dataset.testid = 'rate-' + g[0];
      if (g[2].conversion_rate !== null) { li.dataset.rate = String(g[2].conversion_rate); li.dataset.low = String(ci[0]); li.dataset.high = String(ci[1]); }
      list.appendChild(li);
      points.push(g[2].conversion_rate === null ? null : g[2].conversion_rate * 100);
      bars.push(ci === null ? null : [ci[0] * 100, ci[1] * 100]);
    });
    e.chart(e.el('rate-chart'), {
      type: 'bar',
      data: { labels: groups.map(function (g) { return g[1]; }), datasets: [
        { type: 'line', label: 'conversion rate', data: points, showLine: false, pointRadius: 6, pointBackgroundColor: '#1b1f24', borderColor: '#1b1f24' },
        { type: 'bar', label: '95% interval', data: bars, backgroundColor: 'rgba(9,105,218,0.35)', borderColor: '#0969da', borderWidth: 1, barPercentage: 0.25 },
      ] },
      options: { indexAxis: 'x', plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: 'conversion rate, %' } } } },
    });
    var up = e.clear(e.el('uplifts'));
    report.variants.forEach(function (v) {
      var p = e.text('p', 'Variant ' + v.variant + ' against control: ' + e.upliftWords(v.uplift));
      p.dataset.testid = 'uplift-' + v.variant;
      if (v.uplift) {
        p.dataset.estimate = String(v.uplift.absolute.estimate);
        if (v.uplift.absolute.ci) { p.dataset.low = String(v.uplift.absolute.ci[0]); p.dataset.high = String(v.uplift.absolute.ci[1]); }
        if (v.uplift.p_value !== null) p.dataset.p = String(v.uplift.p_value);
        p.className = v.uplift.significant ? (v.uplift.absolute.estimate > 0 ? 'up' : 'down') : 'flat';
      }
      up.appendChild(p);
    });
    e.el('report-meta').textContent = 'As of ' + report.as_of + (report.goal ? ' · goal: ' + report.goal.event + ' within ' + report.goal.within : ' · no goal: no conversions are counted');
  }

  function page(id) {
    var base = '/v1/campaigns/' + encodeURIComponent(id);
    function show(c) {
      e.el('campaign-name').textContent = c.name;
      e.el('campaign-state').textContent = c.state;
      e.el('campaign-state').className = 'state state-' + c.state;
      e.el('campaign-document').textContent = JSON.stringify(c.document, null, 2);
      e.el('campaign-meta').textContent = 'id ' + c.id + ' · version ' + c.version + ' · updated ' + c.updated_at;
      ['resume', 'pause', 'end'].forEach(function (cmd) { e.el('state-' + cmd).disabled = c.state === 'ended'; });
    }
    ['resume', 'pause', 'end'].forEach(function (cmd) {
      e.el('state-' + cmd).onclick = function () {
        e.api(base + '/' + cmd, { method: 'POST' }).then(show).catch(function (err) { e.status(cmd + ' refused: ' + err.message, true); });
      };
    });
    e.el('preview').onsubmit = function (ev) {
      ev.preventDefault();
      e.api('/v1/campaigns/preview', { method: 'POST', body: { campaign: id, user_id: e.el('preview-user').value.trim() } }).then(function (r) {
        e.el('preview-result').textContent = JSON.stringify(r, null, 2);
      }, function (err) { e.el('preview-result').textContent = 'Refused: ' + err.message + (err.body && err.body.error && err.body.error.path ? ' at ' + err.body.error.path : ''); });
    };
    e.every(5000, function () {
      return Promise.all([e.api(base), e.api(base + '/report')]).then(function (r) { show(r[0]); funnel(r[1]); rates(r[1]); });
    });
  }

  e.sections.campaigns = function () {
    var m = /^\\/console\\/campaigns\\/([^/]+)$/.exec(location.pathname);
    if (m) page(decodeURIComponent(m[1])); else list();
  };
})();
`;
