/**
 * The Segments section: the list with member counts, and a segment's page: its definition, entries
 * and exits per hour, its members a page at a time, and an editor that previews the count as one
 * types (problems listed at their paths) and saves.
 */
export const CLIENT_SEGMENTS = `
(function () {
  var e = evp;

  function list() {
    e.every(5000, function () {
      return e.api('/v1/segments?member_counts=true').then(function (r) {
        var host = e.clear(e.el('segments'));
        if (r.data.length === 0) { host.appendChild(e.text('p', 'No segments yet: create one with POST /v1/segments (docs/segments.md).', 'meta')); return; }
        var t = e.table(['Segment', 'Members', 'Version', 'Updated'], r.data.map(function (s) {
          return [e.link('/console/segments/' + encodeURIComponent(s.id), s.name), e.text('span', String(s.member_count), 'count'), String(s.version), s.updated_at];
        }), 'segment-list');
        Array.prototype.forEach.call(t.tBodies[0].rows, function (tr, i) { tr.dataset.segmentId = r.data[i].id; tr.dataset.testid = 'segment-row'; });
        host.appendChild(t);
      });
    });
  }

  function page(id) {
    var base = '/v1/segments/' + encodeURIComponent(id);
    var segment = null, cursors = [undefined], pageAt = 0, timer = null;
    function members() {
      var c = cursors[pageAt];
      return e.api(base + '/members?limit=20' + (c ? '&cursor=' + encodeURIComponent(c) : '')).then(function (r) {
        var ol = e.clear(e.el('members'));
        r.data.forEach(function (m) { var li = e.text('li', m.user_id + ' · since ' + m.entered_at); li.dataset.userId = m.user_id; ol.appendChild(li); });
        cursors[pageAt + 1] = r.cursor || null;
        e.el('members-next').disabled = !r.cursor;
        e.el('members-prev').disabled = pageAt === 0;
        e.el('members-page').textContent = 'page ' + (pageAt + 1);
      });
    }
    e.el('members-next').onclick = function () { pageAt += 1; members(); };
    e.el('members-prev').onclick = function () { pageAt = Math.max(0, pageAt - 1); members(); };
    function history() {
      return e.api(base + '/history?hours=48').then(function (r) {
        var b = e.buckets(r.data, 'hour', 3600000, 48, ['entered', 'exited']);
        var canvas = e.el('history-chart');
        var sum = function (xs) { return xs.reduce(function (n, x) { return n + x; }, 0); };
        canvas.dataset.entered = String(sum(b.series[0]));
        canvas.dataset.exited = String(sum(b.series[1]));
        canvas.setAttribute('aria-label', canvas.dataset.entered + ' entries and ' + canvas.dataset.exited + ' exits in the last 48 hours');
        e.chart(canvas, { type: 'bar', data: { labels: b.labels, datasets: [
          { label: 'entered', data: b.series[0], backgroundColor: '#1a7f37' },
          { label: 'exited', data: b.series[1].map(function (x) { return -x; }), backgroundColor: '#cf222e' },
        ] }, options: { plugins: { legend: { position: 'bottom' } }, scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'users per hour' } } } } });
      });
    }
    function preview() {
      var out = e.el('preview-count'), problems = e.clear(e.el('preview-problems'));
      var definition;
      try { definition = JSON.parse(e.el('definition-editor').value); } catch (err) {
        out.textContent = 'Not JSON: ' + err.message;
        return;
      }
      out.textContent = 'Counting…';
      e.api('/v1/segments/preview', { method: 'POST', body: { definition: definition } }).then(function (r) {
        out.textContent = r.count + (r.count === 1 ? ' user matches now' : ' users match now');
        out.dataset.count = String(r.count);
      }, function (err) {
        delete out.dataset.count;
        out.textContent = 'Not valid: ' + err.message;
        var issues = (err.body && err.body.error && err.body.error.details && err.body.error.details.issues) || (err.body && err.body.error ? [err.body.error] : []);
        issues.forEach(function (p) { var li = e.text('li', (p.path || '$') + ': ' + p.message); li.dataset.path = p.path || '$'; problems.appendChild(li); });
      });
    }
    e.el('definition-editor').oninput = function () { clearTimeout(timer); timer = setTimeout(preview, 400); };
    e.el('definition-save').onclick = function () {
      var definition;
      try { definition = JSON.parse(e.el('definition-editor').value); } catch (err) { e.status('Not saved: not JSON: ' + err.message, true); return; }
      e.api(base, { method: 'PUT', body: { name: segment.name, definition: definition } }).then(function (s) { segment = s; show(s, true); e.status('Saved version ' + s.version); },
        function (err) { e.status('Not saved: ' + err.message, true); });
    };
    function show(s, editorToo) {
      e.el('segment-name').textContent = s.name;
      e.el('segment-meta').textContent = 'id ' + s.id + ' · version ' + s.version + ' · updated ' + s.updated_at;
      e.el('segment-definition').textContent = JSON.stringify(s.definition, null, 2);
      if (editorToo) e.el('definition-editor').value = JSON.stringify(s.definition, null, 2);
    }
    e.api(base).then(function (s) { segment = s; show(s, true); });
    e.every(5000, function () { return e.api(base).then(function (s) { segment = s; show(s, false); return Promise.all([history(), members()]); }); });
  }

  e.sections.segments = function () {
    var m = /^\\/console\\/segments\\/([^/]+)$/.exec(location.pathname);
    if (m) page(decodeURIComponent(m[1])); else list();
  };
})();
`;
