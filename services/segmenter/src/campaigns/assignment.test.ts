import { assign, unitHash, type Assignment } from './assignment';

describe('unitHash', () => {
  it('is the first 53 bits of SHA-256 of ["purpose","campaign","user"] over 2^53', () => {
    // Computed outside the code: printf '%s' '["holdout","c1","u1"]' | sha256sum → 2359b1fd651dbb68…, >> 11, / 2^53.
    expect(unitHash('holdout', 'c1', 'u1')).toBe(0.13808739124680514);
    expect(unitHash('variant', 'c1', 'u1')).toBe(0.3787221103427504);
    expect(unitHash('holdout', 'c1', 'u2')).toBe(0.22065180822467578);
    expect(unitHash('variant', 'c1', 'u2')).toBe(0.15442851794508206);
    expect(unitHash('holdout', 'spring-promo', 'user-42')).toBe(0.006894391320955706);
    expect(unitHash('variant', 'spring-promo', 'user-42')).toBe(0.9701563937755038);
  });

  it('keeps the parts apart', () => {
    expect(unitHash('holdout', 'a:b', 'c')).not.toBe(unitHash('holdout', 'a', 'b:c'));
  });
});

describe('assign', () => {
  it('gives exact groups for fixed inputs', () => {
    const plan = { holdout: 0.2, weights: [1, 1] };
    expect(assign('c1', 'u1', plan)).toEqual({ group: 'control' }); // holdout hash 0.138 < 0.2
    expect(assign('c1', 'u2', plan)).toEqual({ group: 'variant', variant: 0 }); // 0.221 ≥ 0.2; 0.154 × 2 < 1
    expect(assign('spring-promo', 'user-42', { holdout: 0, weights: [1, 3] })).toEqual({ group: 'variant', variant: 1 }); // 0.970 × 4 ≥ 1
    expect(assign('spring-promo', 'user-42', { holdout: 0.01, weights: [1, 3] })).toEqual({ group: 'control' }); // 0.0069 < 0.01
    expect(assign('c1', 'u1', { holdout: 0, weights: [1] })).toEqual({ group: 'variant', variant: 0 });
  });

  it('splits 10,000 users by holdout and weights within 4σ, the same on every call', () => {
    const users = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
    const plan = { holdout: 0.2, weights: [1, 2, 1] };
    const count = (list: Assignment[]) => {
      const n = { control: 0, v0: 0, v1: 0, v2: 0 };
      for (const a of list) {
        if (a.group === 'control') n.control++;
        else n[`v${a.variant}` as 'v0' | 'v1' | 'v2']++;
      }
      return n;
    };
    const first = users.map((u) => assign('campaign-7', u, plan));
    const n = count(first);
    // Control ~ Binomial(10,000, 0.2): σ = √(10,000 × 0.2 × 0.8) = 40.
    expect(Math.abs(n.control - 2000)).toBeLessThanOrEqual(4 * 40);
    // Each variant among the treated: p = weight / 4.
    const treated = 10_000 - n.control;
    for (const [k, p] of [
      ['v0', 0.25],
      ['v1', 0.5],
      ['v2', 0.25],
    ] as const) {
      expect(Math.abs(n[k] - treated * p)).toBeLessThanOrEqual(4 * Math.sqrt(treated * p * (1 - p)));
    }
    // Pinned (counted by an independent Python script over hashlib): a change of the hash would move
    // users of running campaigns between groups.
    expect(n).toEqual({ control: 1959, v0: 1982, v1: 4046, v2: 2013 });
    expect(users.map((u) => assign('campaign-7', u, plan))).toEqual(first);
  });

  it('moves no treated user between variants when the holdout changes, and nobody across control when weights change', () => {
    const users = Array.from({ length: 2000 }, (_, i) => `u${i}`);
    const a = users.map((u) => assign('c', u, { holdout: 0.1, weights: [1, 1] }));
    const b = users.map((u) => assign('c', u, { holdout: 0.3, weights: [1, 1] }));
    const c = users.map((u) => assign('c', u, { holdout: 0.1, weights: [3, 1, 1] }));
    users.forEach((_, i) => {
      const [x, y, z] = [a[i], b[i], c[i]] as [Assignment, Assignment, Assignment];
      if (x.group === 'variant' && y.group === 'variant') expect(y.variant).toBe(x.variant);
      if (x.group === 'control') expect(y.group).toBe('control');
      expect(z.group).toBe(x.group);
    });
  });
});
