import type { CampaignReport } from '@evp/segmenter';
import { percent, wilsonInterval } from '@evp/segmenter/report-words';

/** A group's counts as the report gives them (control's and each variant's). */
export type GroupReport = CampaignReport['control'];

/** A group of the report as the page shows it: its test id's suffix, its label, its counts. */
export interface ReportGroup {
  id: string;
  label: string;
  counts: GroupReport;
}

/** Control first, then each variant in document order. */
export const reportGroups = (report: CampaignReport): ReportGroup[] => [
  { id: 'control', label: 'Control', counts: report.control },
  ...report.variants.map((v) => ({ id: `variant-${v.variant}`, label: `Variant ${v.variant}`, counts: v })),
];

/** The funnel's stages, in order: users (audience), then runs' actions, then responses and conversions. */
export const STAGES = ['audience', 'created', 'delivered', 'shown', 'open', 'converted'] as const;
type Stage = (typeof STAGES)[number];

/** A stage's count in a group (responses for shown/open; 0 for converted without a goal). */
export function stageCount(g: GroupReport, s: Stage): number {
  if (s === 'shown' || s === 'open') return g.responses[s];
  return g[s] ?? 0;
}

/** One line of the rates list: its words, and the numbers the page also gives as data attributes. */
export interface RateLine {
  words: string;
  rate: number | null;
  ci: [number, number] | null;
}

/**
 * "Control: 5.0% converted (50 of 1000 matured users), 95% CI 3.8% to 6.5%", or why there is no rate.
 * The rate and interval are those of the readings' users, the matured ones (every goal window
 * closed), once there are any; before that, of the whole audience (open windows still count as not
 * converted), said without "matured".
 */
export function rateLine(g: ReportGroup): RateLine {
  const c = g.counts;
  const matured = c.matured !== null && c.matured > 0 && c.matured_converted !== null;
  const converted = matured ? c.matured_converted : c.converted;
  const users = matured ? (c.matured as number) : c.audience;
  const ci = converted === null ? null : wilsonInterval(converted, users);
  if (converted === null || ci === null) return { words: `${g.label}: no conversion rate (no goal or no audience)`, rate: null, ci: null };
  const rate = converted / users;
  return {
    words: `${g.label}: ${percent(rate)} converted (${converted} of ${users}${matured ? ' matured users' : ''}), 95% CI ${percent(ci[0])} to ${percent(ci[1])}`,
    rate,
    ci,
  };
}

/** The report's header: when it was computed and the goal it counts. */
export const reportMeta = (report: CampaignReport): string =>
  `As of ${report.as_of}${report.goal ? ` · goal: ${report.goal.event} within ${report.goal.within}` : ' · no goal: no conversions are counted'}`;

/**
 * An adaptive campaign's weights over time, as the allocation chart draws them: per variant, its
 * share (%) of the treated users in each epoch (weights normalized: the document's first split may
 * be weights like 1 and 3). `labels` are the epochs' starts.
 */
export function allocationSeries({ epochs }: NonNullable<CampaignReport['allocation']>): { labels: string[]; series: number[][] } {
  // Weights are positive (the document’s and the bandit’s, each at least the floor); the latest epoch has every variant.
  const shares = epochs.map((e) => e.weights.map((w) => (100 * w) / e.weights.reduce((a, b) => a + b)));
  return {
    labels: epochs.map((e) => e.from.slice(0, 16).replace('T', ' ')),
    series: Array.from({ length: epochs.at(-1)!.weights.length }, (_, v) => shares.map((s) => s[v] ?? 0)),
  };
}
