/// <reference lib="dom" />
import type { CampaignAnswer, CampaignReport, PreviewOutcome } from '@evp/segmenter';
import { guardrailWords, percent, readingWords, upliftWords, valueWords } from '@evp/segmenter/report-words';
import { api, byId, chart, clear, every, messageOf, refusalOf, status, table, text } from '../../shell';
import { STAGES, allocationSeries, rateLine, reportGroups, reportMeta, stageCount } from './groups';

const COLORS = ['#6e7781', '#0969da', '#1a7f37', '#bf8700', '#8250df', '#cf222e'];
const COMMANDS = ['resume', 'pause', 'end'] as const;

/** The funnel per group: a bar chart and the same numbers as a table. */
function funnel(report: CampaignReport): void {
  const groups = reportGroups(report);
  chart(byId<HTMLCanvasElement>('funnel-chart'), {
    type: 'bar',
    data: {
      labels: [...STAGES],
      datasets: groups.map((g, i) => ({ label: g.label, data: STAGES.map((s) => stageCount(g.counts, s)), backgroundColor: COLORS[i % COLORS.length]! })),
    },
    options: { plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: 'users / runs' } } } },
  });
  const rows = groups.map((g) => [g.label, ...STAGES.map((s) => String(stageCount(g.counts, s)))]);
  clear(byId('funnel-table')).appendChild(table(['Group', ...STAGES], rows, 'funnel'));
}

/** Each group's conversion rate with its 95% interval (list and chart), and each variant's uplift in words. */
function rates(report: CampaignReport): void {
  const list = clear(byId('rates'));
  const points: (number | null)[] = [];
  const bars: ([number, number] | null)[] = [];
  const groups = reportGroups(report);
  for (const g of groups) {
    const line = rateLine(g);
    const li = text('li', line.words);
    li.dataset.testid = `rate-${g.id}`;
    if (line.rate !== null && line.ci !== null) {
      li.dataset.rate = String(line.rate);
      li.dataset.low = String(line.ci[0]);
      li.dataset.high = String(line.ci[1]);
    }
    list.appendChild(li);
    points.push(line.rate === null ? null : line.rate * 100);
    bars.push(line.ci === null ? null : [line.ci[0] * 100, line.ci[1] * 100]);
  }
  chart(byId<HTMLCanvasElement>('rate-chart'), {
    type: 'bar',
    data: {
      labels: groups.map((g) => g.label),
      datasets: [
        // Chart.js draws a line dataset inside a bar chart; its types know only one type per chart.
        {
          type: 'line',
          label: 'conversion rate',
          data: points,
          showLine: false,
          pointRadius: 6,
          pointBackgroundColor: '#1b1f24',
          borderColor: '#1b1f24',
        } as never,
        {
          type: 'bar',
          label: '95% interval',
          data: bars,
          backgroundColor: 'rgba(9,105,218,0.35)',
          borderColor: '#0969da',
          borderWidth: 1,
          barPercentage: 0.25,
        },
      ],
    },
    options: {
      indexAxis: 'x',
      plugins: { legend: { position: 'bottom' } },
      scales: { y: { beginAtZero: true, title: { display: true, text: 'conversion rate, %' } } },
    },
  });
  const up = clear(byId('uplifts'));
  for (const v of report.variants) {
    // Once users have matured, the reading to act on (below) is the verdict; this all-users Wald
    // reading stays beside it, said for what it is: valid only when read once.
    const label = v.readings ? `Variant ${v.variant} against control, all users, valid only if read once` : `Variant ${v.variant} against control`;
    const p = text('p', `${label}: ${upliftWords(v.uplift)}`);
    p.dataset.testid = `uplift-${v.variant}`;
    if (v.uplift) {
      p.dataset.estimate = String(v.uplift.absolute.estimate);
      if (v.uplift.absolute.ci) {
        p.dataset.low = String(v.uplift.absolute.ci[0]);
        p.dataset.high = String(v.uplift.absolute.ci[1]);
      }
      if (v.uplift.p_value !== null) p.dataset.p = String(v.uplift.p_value);
      p.className = v.readings ? 'meta' : v.uplift.significant ? (v.uplift.absolute.estimate > 0 ? 'up' : 'down') : 'flat';
    }
    up.appendChild(p);
  }
  byId('report-meta').textContent = reportMeta(report);
}

/**
 * The sample ratio check, always shown (a mismatch first, as an alert: nothing below can be trusted
 * then), and each variant's reading to act on, with the correction, in the report's own words.
 */
function readings(report: CampaignReport): void {
  const box = clear(byId('srm'));
  // Null with fewer than two groups or no users yet: nothing to check.
  const srm = report.srm;
  if (srm) {
    if (srm.warning !== null) {
      const warning = text('p', srm.warning, 'warning');
      warning.setAttribute('role', 'alert');
      warning.dataset.testid = 'srm-warning';
      box.appendChild(warning);
    }
    const check = text('p', `${srm.name}: ${srm.explanation}`, 'meta');
    check.dataset.testid = 'srm-check';
    check.dataset.p = String(srm.p_value);
    check.dataset.mismatch = String(srm.mismatch);
    box.appendChild(check);
  }
  const list = clear(byId('readings'));
  // The readings' intervals are at 1 − α/k for k variants (Holm's family), α = 1 − the report's confidence.
  const confidence = 1 - (1 - report.confidence) / Math.max(1, report.correction.family);
  for (const v of report.variants) {
    if (!v.readings) continue;
    const kind = v.readings.primary;
    const primary = v.readings[kind];
    const verdict = text(
      'p',
      `Variant ${v.variant}, the reading to act on (${primary.name}): ${readingWords(primary, kind, confidence)} P(beats control) = ${percent(v.readings.bayes.p_beats_control)}.`,
      primary.significant ? (primary.estimate > 0 ? 'up' : 'down') : 'flat',
    );
    verdict.dataset.testid = `reading-${v.variant}`;
    list.appendChild(verdict);
    list.appendChild(text('p', `${primary.explanation} ${v.readings.bayes.explanation}`, 'meta'));
    // What the campaign can detect, and with the document's min_effect how many users and days remain.
    const power = text('p', `${v.readings.power.name}: ${v.readings.power.explanation}`, 'meta');
    power.dataset.testid = `power-${v.variant}`;
    list.appendChild(power);
    const value = v.readings.value;
    if (value) {
      const line = text('p', `Variant ${v.variant}, ${value.name}: ${valueWords(value, confidence)}.`);
      line.dataset.testid = `value-${v.variant}`;
      list.appendChild(line);
      list.appendChild(text('p', value.explanation, 'meta'));
    }
  }
  if (report.variants.length > 1) list.appendChild(text('p', `${report.correction.name}: ${report.correction.explanation}`, 'meta'));
}

/**
 * The guardrails: a breach first, as an alert (a variant may be hurting users), then each variant's
 * block and discard rate in words, and what they are compared with.
 */
function guardrails(report: CampaignReport): void {
  const box = clear(byId('guardrails'));
  const g = report.guardrails;
  for (const w of g.warnings) {
    const warning = text('p', w, 'warning');
    warning.setAttribute('role', 'alert');
    warning.dataset.testid = 'guardrail-warning';
    box.appendChild(warning);
  }
  for (const v of g.variants) {
    for (const [metric, verb] of [
      ['block', 'blocked'],
      ['discard', 'discarded'],
    ] as const) {
      const line = text('p', guardrailWords(v.variant, verb, v[metric]), v[metric].breach ? 'down' : 'meta');
      line.dataset.testid = `guardrail-${v.variant}-${metric}`;
      line.dataset.breach = String(v[metric].breach);
      box.appendChild(line);
    }
  }
  if (g.variants.length > 0) box.appendChild(text('p', `${g.name}: ${g.explanation}`, 'meta'));
}

/**
 * An adaptive campaign's weights over time (a stepped line per variant: its share of the treated
 * users from each epoch's start); hidden for a campaign with fixed weights. Its epoch-weighted uplift
 * is in the JSON report only: the page script's 5 KB budget has no room for more words.
 */
function allocation(report: CampaignReport): void {
  const a = report.allocation;
  byId('allocation').hidden = !a;
  if (!a) return;
  const { labels, series } = allocationSeries(a);
  const canvas = byId<HTMLCanvasElement>('allocation-chart');
  // The same numbers for a screen reader: one line per epoch.
  canvas.ariaLabel = labels.map((l, i) => `${l}: ${series.map((s) => s[i]!.toFixed(1) + '%').join(', ')}`).join('; ');
  chart(canvas, {
    type: 'line',
    data: { labels, datasets: series.map((data, v) => ({ label: `Variant ${v + 1}`, data, stepped: true, borderColor: COLORS[v + 1]! })) },
    options: { scales: { y: { min: 0, max: 100 } } },
  });
}

/** A campaign's page: its document, state buttons, a preview for one user, and its report as pictures and words; every 5 s. */
export function campaignPage(id: string): void {
  const base = `/v1/campaigns/${encodeURIComponent(id)}`;
  function show(c: CampaignAnswer): void {
    byId('campaign-name').textContent = c.name;
    const state = byId('campaign-state');
    state.textContent = c.state;
    state.className = `state state-${c.state}`;
    byId('campaign-document').textContent = JSON.stringify(c.document, null, 2);
    byId('campaign-meta').textContent = `id ${c.id} · version ${c.version} · updated ${c.updated_at}`;
    for (const cmd of COMMANDS) byId<HTMLButtonElement>(`state-${cmd}`).disabled = c.state === 'ended';
  }
  for (const cmd of COMMANDS) {
    byId(`state-${cmd}`).onclick = () => {
      api<CampaignAnswer>(`${base}/${cmd}`, { method: 'POST' }).then(show, (err: unknown) => status(`${cmd} refused: ${messageOf(err)}`, true));
    };
  }
  byId('preview').onsubmit = (ev) => {
    ev.preventDefault();
    const out = byId('preview-result');
    api<PreviewOutcome>('/v1/campaigns/preview', { method: 'POST', body: { campaign: id, user_id: byId<HTMLInputElement>('preview-user').value.trim() } }).then(
      (r) => {
        out.textContent = JSON.stringify(r, null, 2);
      },
      (err: unknown) => {
        const path = refusalOf(err).error?.path;
        out.textContent = `Refused: ${messageOf(err)}${path ? ` at ${path}` : ''}`;
      },
    );
  };
  every(5000, async () => {
    const [c, report] = await Promise.all([api<CampaignAnswer>(base), api<CampaignReport>(`${base}/report`)]);
    show(c);
    funnel(report);
    rates(report);
    readings(report);
    guardrails(report);
    allocation(report);
  });
}
