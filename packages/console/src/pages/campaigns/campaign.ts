/// <reference lib="dom" />
import type { CampaignAnswer, CampaignReport, PreviewOutcome } from '@evp/segmenter';
import { epochWeightedWords, excludesZero, guardrailWords, percent, readingWords, upliftWords, valueWords } from '@evp/segmenter/report-words';
import { api, byId, chart, clear, every, messageOf, refusalOf, status, table, text } from '../../shell';
import { STAGES, allocationSeries, rateLine, reportGroups, reportMeta, stageCount } from './groups';

const COLORS = ['#6e7781', '#0969da', '#1a7f37', '#bf8700', '#8250df', '#cf222e'];
const COMMANDS = ['resume', 'pause', 'end'] as const;

/**
 * Appends a line of words to `box`: its class, and its data attributes (the test id and the numbers
 * behind the words, made strings by the dataset's setter; a null or false source sets none).
 */
function say(box: HTMLElement, words: string, cls?: string, ...data: unknown[]): HTMLElement {
  const line = box.appendChild(text('p', words, cls));
  Object.assign(line.dataset, ...data);
  return line;
}

/** A warning above the report, as an alert: the numbers below it cannot be taken as they are. */
const alarm = (box: HTMLElement, words: string, testid: string) => say(box, words, 'warning', { testid }).setAttribute('role', 'alert');

/** A chart's options: the legend below it, its y axis from 0 with this title (the funnel's and the rates'). */
const legendBelowAxisFrom0 = (title: string) =>
  ({ plugins: { legend: { position: 'bottom' } }, scales: { y: { beginAtZero: true, title: { display: true, text: title } } } }) as const;

/** A difference's colour: up or down when it is likely real, else flat. */
const tone = (significant: boolean, estimate: number) => (significant ? (estimate > 0 ? 'up' : 'down') : 'flat');

/** The funnel per group: a bar chart and the same numbers as a table. */
function funnel(report: CampaignReport): void {
  const groups = reportGroups(report);
  chart(byId<HTMLCanvasElement>('funnel-chart'), {
    type: 'bar',
    data: {
      labels: [...STAGES],
      datasets: groups.map((g, i) => ({ label: g.label, data: STAGES.map((s) => stageCount(g.counts, s)), backgroundColor: COLORS[i % COLORS.length]! })),
    },
    options: legendBelowAxisFrom0('users / runs'),
  });
  const rows = groups.map((g) => [g.label, ...STAGES.map((s) => String(stageCount(g.counts, s)))]);
  clear(byId('funnel-table')).appendChild(table(['Group', ...STAGES], rows, 'funnel'));
}

/** Each group's conversion rate with its 95% interval (list and chart), and each variant's uplift in words. */
function rates(report: CampaignReport): void {
  const list = clear(byId('rates'));
  const groups = reportGroups(report);
  const lines = groups.map(rateLine);
  lines.forEach(({ words, rate, ci }, i) =>
    Object.assign(list.appendChild(text('li', words)).dataset, { testid: `rate-${groups[i]!.id}` }, ci && { rate, low: ci[0], high: ci[1] }),
  );
  chart(byId<HTMLCanvasElement>('rate-chart'), {
    type: 'bar',
    data: {
      labels: groups.map((g) => g.label),
      datasets: [
        // Chart.js draws a line dataset inside a bar chart; its types know only one type per chart.
        {
          type: 'line',
          label: 'conversion rate',
          // In %; null (no point) for a group without a rate.
          data: lines.map((l) => l.rate && l.rate * 100),
          showLine: false,
          pointRadius: 6,
          pointBackgroundColor: '#1b1f24',
          borderColor: '#1b1f24',
        } as never,
        {
          type: 'bar',
          label: '95% interval',
          data: lines.map((l) => l.ci && [l.ci[0] * 100, l.ci[1] * 100]),
          backgroundColor: 'rgba(9,105,218,0.35)',
          borderColor: '#0969da',
          borderWidth: 1,
          barPercentage: 0.25,
        },
      ],
    },
    options: legendBelowAxisFrom0('conversion rate, %'),
  });
  const up = clear(byId('uplifts'));
  for (const v of report.variants) {
    // Once users have matured, the reading to act on (below) is the verdict; this all-users Wald
    // reading stays beside it, said for what it is: valid only when read once.
    const label = v.readings ? `Variant ${v.variant} against control, all users, valid only if read once` : `Variant ${v.variant} against control`;
    const u = v.uplift;
    say(
      up,
      `${label}: ${upliftWords(u)}`,
      u ? (v.readings ? 'meta' : tone(u.significant, u.absolute.estimate)) : '',
      { testid: `uplift-${v.variant}` },
      u && { estimate: u.absolute.estimate },
      u?.absolute.ci && { low: u.absolute.ci[0], high: u.absolute.ci[1] },
      u?.p_value != null && { p: u.p_value },
    );
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
    if (srm.warning !== null) alarm(box, srm.warning, 'srm-warning');
    say(box, `${srm.name}: ${srm.explanation}`, 'meta', { testid: 'srm-check', p: srm.p_value, mismatch: srm.mismatch });
  }
  const list = clear(byId('readings'));
  // The readings' intervals are at 1 − α/k for k variants (Holm's family), α = 1 − the report's confidence.
  const confidence = 1 - (1 - report.confidence) / Math.max(1, report.correction.family);
  for (const v of report.variants) {
    if (!v.readings) continue;
    const kind = v.readings.primary;
    const primary = v.readings[kind];
    say(
      list,
      `Variant ${v.variant}, the reading to act on (${primary.name}): ${readingWords(primary, kind, confidence)} P(beats control) = ${percent(v.readings.bayes.p_beats_control)}.`,
      tone(primary.significant, primary.estimate),
      { testid: `reading-${v.variant}` },
    );
    say(list, `${primary.explanation} ${v.readings.bayes.explanation}`, 'meta');
    // What the campaign can detect, and with the document's min_effect how many users and days remain.
    say(list, `${v.readings.power.name}: ${v.readings.power.explanation}`, 'meta', { testid: `power-${v.variant}` });
    const value = v.readings.value;
    if (value) {
      say(list, `Variant ${v.variant}, ${value.name}: ${valueWords(value, confidence)}.`, '', { testid: `value-${v.variant}` });
      say(list, value.explanation, 'meta');
    }
  }
  if (report.variants.length > 1) say(list, `${report.correction.name}: ${report.correction.explanation}`, 'meta');
}

/**
 * The guardrails: a breach first, as an alert (a variant may be hurting users), then each variant's
 * block and discard rate in words, and what they are compared with.
 */
function guardrails(report: CampaignReport): void {
  const box = clear(byId('guardrails'));
  const g = report.guardrails;
  for (const w of g.warnings) alarm(box, w, 'guardrail-warning');
  for (const v of g.variants) {
    for (const [metric, verb] of [
      ['block', 'blocked'],
      ['discard', 'discarded'],
    ] as const) {
      const breach = v[metric].breach;
      say(box, guardrailWords(v.variant, verb, v[metric]), breach ? 'down' : 'meta', { testid: `guardrail-${v.variant}-${metric}`, breach });
    }
  }
  if (g.variants.length > 0) say(box, `${g.name}: ${g.explanation}`, 'meta');
}

/**
 * An adaptive campaign's epoch-weighted uplift per variant, said and coloured as the uplift is (its
 * explanation is the section's static markup), and its weights over time (a stepped line per
 * variant: its share of the treated users from each epoch's start); hidden for a campaign with fixed weights.
 */
function allocation(report: CampaignReport): void {
  const a = report.allocation;
  byId('allocation').hidden = !a;
  if (!a) return;
  const box = clear(byId('epoch-weighted'));
  for (const { variant, epoch_weighted: e } of report.variants) {
    if (!e) continue;
    say(
      box,
      `Variant ${variant}, epoch-weighted: ${epochWeightedWords(e)}`,
      tone(excludesZero(e.ci), e.estimate ?? 0),
      { testid: `epoch-weighted-${variant}` },
      e.ci && { estimate: e.estimate, low: e.ci[0], high: e.ci[1] },
    );
  }
  const { labels, series } = allocationSeries(a);
  const canvas = byId<HTMLCanvasElement>('allocation-chart');
  // The same numbers for a screen reader: one line per epoch.
  canvas.setAttribute('aria-label', labels.map((l, i) => `${l}: ${series.map((s) => s[i]!.toFixed(1) + '%').join(', ')}`).join('; '));
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
