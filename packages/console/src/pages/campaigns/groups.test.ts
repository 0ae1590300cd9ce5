import type { CampaignReport } from '@evp/segmenter';
import { wilsonInterval } from '@evp/segmenter/report-words';
import { STAGES, allocationSeries, rateLine, reportGroups, reportMeta, stageCount, type GroupReport } from './groups';

const group = (audience: number, converted: number | null): GroupReport => ({
  audience,
  runs: audience,
  requested: audience,
  skipped: { total: 0, reasons: {} },
  created: audience - 1,
  delivered: audience - 2,
  withdrawn: 0,
  expired: 0,
  responses: { shown: 5, open: 2, discard: 0, block: 0, error: 0, expired: 0 },
  users_blocked: 0,
  users_discarded: 0,
  converted,
  conversion_rate: converted === null || audience === 0 ? null : converted / audience,
  attribution_open: converted === null ? null : 0,
  matured: converted === null ? null : 0,
  matured_converted: converted === null ? null : 0,
});

const report = (goal: boolean): CampaignReport => ({
  campaign_id: 'c-1',
  as_of: '2026-11-28T10:00:00.000Z',
  goal: goal ? { event: 'checkout', within: '7d' } : null,
  confidence: 0.95,
  srm: null,
  correction: { name: 'Several variants', explanation: '', method: 'holm', family: 0 },
  guardrails: { name: 'Guardrails', explanation: '', alpha: 0.05, reference: 'other variants', variants: [], warnings: [] },
  allocation: null,
  control: group(1000, goal ? 50 : null),
  variants: [{ ...group(1000, goal ? 80 : null), variant: 1, action_id: 7, uplift: null, readings: null, epoch_weighted: null }],
});

describe('the campaign report on the page', () => {
  it('lists control, then each variant, and counts each funnel stage (responses for shown and open)', () => {
    const groups = reportGroups(report(true));
    expect(groups.map((g) => [g.id, g.label])).toEqual([
      ['control', 'Control'],
      ['variant-1', 'Variant 1'],
    ]);
    expect(STAGES.map((s) => stageCount(groups[0]!.counts, s))).toEqual([1000, 999, 998, 5, 2, 50]);
    expect(stageCount(reportGroups(report(false))[0]!.counts, 'converted')).toBe(0);
  });

  it('says each group’s rate with its 95% Wilson interval, or why it has none', () => {
    const [control] = reportGroups(report(true));
    expect(rateLine(control!)).toEqual({
      words: 'Control: 5.0% converted (50 of 1000), 95% CI 3.8% to 6.5%',
      rate: 0.05,
      ci: [expect.closeTo(0.03813, 5), expect.closeTo(0.065314, 5)],
    });
    expect(rateLine(reportGroups(report(false))[0]!)).toEqual({ words: 'Control: no conversion rate (no goal or no audience)', rate: null, ci: null });
  });

  it('once users have matured, draws the readings’ users: matured converted of matured', () => {
    const counts = { ...group(1000, 50), matured: 400, matured_converted: 20 };
    expect(rateLine({ id: 'control', label: 'Control', counts })).toEqual({
      words: 'Control: 5.0% converted (20 of 400 matured users), 95% CI 3.3% to 7.6%',
      rate: 0.05,
      ci: wilsonInterval(20, 400),
    });
  });

  it('says when the report was made and what it counts', () => {
    expect(reportMeta(report(true))).toBe('As of 2026-11-28T10:00:00.000Z · goal: checkout within 7d');
    expect(reportMeta(report(false))).toBe('As of 2026-11-28T10:00:00.000Z · no goal: no conversions are counted');
  });

  it('draws an adaptive campaign’s weights as each variant’s share of the treated users per epoch', () => {
    const series = allocationSeries({
      estimate: 'epoch_weighted',
      epochs: [
        { from: '2026-03-01T00:00:00.000Z', holdout: 0.1, weights: [1, 3], adaptive: false },
        { from: '2026-03-01T12:00:00.000Z', holdout: 0.1, weights: [0.32, 0.68], adaptive: true },
      ],
    });
    expect(series).toEqual({
      labels: ['2026-03-01 00:00', '2026-03-01 12:00'],
      series: [
        [25, 32],
        [75, 68],
      ],
    });
  });
});
