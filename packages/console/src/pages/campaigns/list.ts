/// <reference lib="dom" />
import type { CampaignActivity, CampaignAnswer, DataAnswer } from '@evp/segmenter';
import { HOUR_MS, api, buckets, byId, chart, clear, every, link, table, text, total } from '../../shell';

/** A campaign's actions created per hour over 24 h, as a sparkline whose label and data attribute say the total. */
function sparkline(activity: readonly CampaignActivity[]): { box: HTMLElement; created: number } {
  const b = buckets(activity, 'hour', HOUR_MS, 24, ['created'], Date.now());
  const created = total(b.series[0]!);
  const box = text('div', null, 'spark');
  const canvas = document.createElement('canvas');
  Object.assign(canvas.dataset, { testid: 'sparkline', created });
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${created} actions created in the last 24 hours`);
  box.appendChild(canvas);
  chart(canvas, {
    type: 'line',
    data: { labels: b.labels, datasets: [{ data: b.series[0]!, borderColor: '#0969da', borderWidth: 1.5, pointRadius: 0, fill: false }] },
    options: {
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
      scales: { x: { display: false }, y: { display: false, beginAtZero: true } },
    },
  });
  return { box, created };
}

/** The list of campaigns: state, version, actions created in the last 24 hours; every 5 s. */
export function campaignList(): void {
  every(5000, async () => {
    const [campaigns, activity] = await Promise.all([
      api<DataAnswer<CampaignAnswer>>('/v1/campaigns'),
      api<DataAnswer<CampaignActivity>>('/v1/campaigns/activity?hours=24'),
    ]);
    const host = clear(byId('campaigns'));
    if (campaigns.data.length === 0) {
      host.appendChild(text('p', 'No campaigns yet: create one with POST /v1/campaigns (docs/campaigns.md).', 'meta'));
      return;
    }
    const rows = campaigns.data.map((c) => {
      const { box, created } = sparkline(activity.data.filter((a) => a.campaign_id === c.id));
      const state = text('span', c.state, `state state-${c.state}`);
      return [link(`/console/campaigns/${encodeURIComponent(c.id)}`, c.name), state, String(c.version), c.updated_at, text('span', created), box];
    });
    const t = table(['Campaign', 'State', 'Version', 'Updated', 'Created (24 h)', 'Actions created per hour'], rows, 'campaign-list');
    Array.from(t.tBodies[0]!.rows).forEach((tr, i) => {
      tr.dataset.campaignId = campaigns.data[i]!.id;
      tr.dataset.testid = 'campaign-row';
    });
    host.appendChild(t);
  });
}
