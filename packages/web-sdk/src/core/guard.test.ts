import { guard } from './guard';

describe('guard', () => {
  it('turns a throw into the fallback and a warning', () => {
    const warnings: string[] = [];
    const f = guard(
      (m) => warnings.push(m),
      'track',
      (): number => {
        throw new Error('boom');
      },
      7,
    );
    expect(f()).toBe(7);
    expect(warnings).toEqual(['track failed']);
  });

  it('turns a rejected promise into the fallback', async () => {
    const warnings: string[] = [];
    const f = guard(
      (m) => warnings.push(m),
      'fetchActions',
      () => Promise.reject<string[]>(new Error('offline')),
      [] as string[],
    );
    await expect(f()).resolves.toEqual([]);
    expect(warnings).toEqual(['fetchActions failed']);
  });
});
