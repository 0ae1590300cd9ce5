/// <reference lib="dom" />
/**
 * The Health page: the app's events stored and records rejected per minute and their freshness p95
 * (GET /v1/inspect/health), dead letters by consumer group, and every consumer group's lag from
 * /metrics (consumer_lag_*).
 */
import type { AppHealth } from '@evp/segmenter';
import { MINUTE_MS, api, buckets, byId, chart, clear, every, startPage, table, text, total } from '../../shell';
import { groupLags, partitionLags } from './lag';

async function lag(): Promise<void> {
  const res = await fetch('/metrics');
  const parts = partitionLags(res.ok ? await res.text() : '');
  const host = clear(byId('lag'));
  if (!parts.length) {
    host.appendChild(text('p', 'No lag reported yet (/metrics has no consumer lag gauges).', 'meta'));
    return;
  }
  const totals = groupLags(parts).map((t) => [t.group, String(t.partitions), String(t.messages), t.seconds.toFixed(1)]);
  host.appendChild(table(['Group', 'Partitions', 'Lag (messages)', 'Largest lag (s)'], totals, 'lag-totals-table'));
  const rows = parts.map((p) => [p.group, p.topic, String(p.partition), String(p.messages), p.seconds.toFixed(1)]);
  host.appendChild(table(['Group', 'Topic', 'Partition', 'Lag (messages)', 'Lag (s)'], rows, 'lag-table'));
}

async function intake(): Promise<void> {
  const r = await api<AppHealth>('/v1/inspect/health?minutes=60');
  const b = buckets(r.minutes, 'minute', MINUTE_MS, 60, ['events', 'rejected'], Date.now());
  const p95 = buckets(r.minutes, 'minute', MINUTE_MS, 60, ['freshness_p95_seconds'], Date.now(), null);
  const c = byId<HTMLCanvasElement>('intake-chart');
  c.dataset.events = String(total(b.series[0]!));
  c.dataset.rejected = String(total(b.series[1]!));
  c.setAttribute('aria-label', `${c.dataset.events} events stored and ${c.dataset.rejected} records rejected in the last hour`);
  chart(c, {
    type: 'line',
    data: {
      labels: b.labels,
      datasets: [
        { label: 'events / min', data: b.series[0]!, borderColor: '#1a7f37', pointRadius: 0 },
        { label: 'rejected / min', data: b.series[1]!, borderColor: '#cf222e', pointRadius: 0 },
      ],
    },
    options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true } } },
  });
  const f = byId<HTMLCanvasElement>('freshness-chart');
  const latest = r.minutes.filter((m) => m.freshness_p95_seconds !== null).pop();
  f.dataset.latest = latest ? String(latest.freshness_p95_seconds) : '';
  byId('freshness-now').textContent =
    latest?.freshness_p95_seconds != null
      ? `Latest minute with events: p95 ${latest.freshness_p95_seconds.toFixed(2)} s from receipt to stored`
      : 'No events in the last hour.';
  chart(f, {
    type: 'line',
    data: { labels: p95.labels, datasets: [{ label: 'freshness p95 (s)', data: p95.series[0]!, borderColor: '#8250df', pointRadius: 1, spanGaps: true }] },
    options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: 'seconds' } } } },
  });
  const host = clear(byId('dead-letters'));
  host.appendChild(
    r.dead_letters.length
      ? table(
          ['Group', 'Dead letters (last hour)'],
          r.dead_letters.map((d) => [d.group, String(d.count)]),
          'dead-letter-table',
        )
      : text('p', 'No dead letters in the last hour.', 'meta'),
  );
}

startPage({
  run: () =>
    every(5000, async () => {
      await Promise.all([intake(), lag()]);
    }),
});
