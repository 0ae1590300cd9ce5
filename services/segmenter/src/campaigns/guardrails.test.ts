import { guardrailReadings } from './guardrails';
import { harm } from './stats';

// The guardrails of the report: each variant's block and discard rates against the other variants
// pooled, tested one-sided for harm (the test's numbers are stats/reference.test.ts's, from R).
describe('guardrails', () => {
  it('flags a variant that makes more users block than the others, and says so in words', () => {
    const g = guardrailReadings([
      { audience: 1000, block: 30, discard: 40 },
      { audience: 600, block: 9, discard: 30 },
      { audience: 400, block: 6, discard: 20 },
    ]);
    expect(g).toMatchObject({ name: 'Guardrails', alpha: 0.05, reference: 'other variants' });
    // Variant 1 against variants 2 and 3 pooled: 30/1000 against 15/1000.
    const v1 = g.variants[0];
    expect(v1?.block).toEqual({ users: 30, rate: 0.03, reference_rate: 0.015, ...harm({ converted: 30, audience: 1000 }, { converted: 15, audience: 1000 }) });
    expect(v1?.block.breach).toBe(true);
    // Variant 2 against 1 and 3: 9/600 against 36/1400, fewer: no harm.
    expect(g.variants[1]?.block).toMatchObject({ users: 9, rate: 0.015, reference_rate: 36 / 1400, breach: false });
    // Discards: 40/1000 against 50/1000 (variant 1) … nobody breaches.
    expect(g.variants.map((v) => v.discard.breach)).toEqual([false, false, false]);
    expect(g.warnings).toEqual([
      'Variant 1: 3.0% of its users blocked its message, against 1.5% for the other variants (one-sided p = 0.013): it may be hurting users; look before keeping it.',
    ]);
  });

  it('with one variant there is no baseline: rates only, no test (control is sent nothing)', () => {
    const g = guardrailReadings([{ audience: 500, block: 5, discard: 0 }]);
    expect(g.variants).toEqual([
      {
        variant: 1,
        block: { users: 5, rate: 0.01, reference_rate: null, difference: null, p_value: null, breach: false },
        discard: { users: 0, rate: 0, reference_rate: null, difference: null, p_value: null, breach: false },
      },
    ]);
    expect(g.warnings).toEqual([]);
    expect(g.explanation).toContain('With one variant there is nothing to compare it with');
    // A variant without users has no rate.
    expect(
      guardrailReadings([
        { audience: 0, block: 0, discard: 0 },
        { audience: 10, block: 1, discard: 0 },
      ]).variants[0]?.block.rate,
    ).toBeNull();
  });
});
