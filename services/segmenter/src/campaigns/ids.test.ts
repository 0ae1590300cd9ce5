import { MAX_GIVEN_ID } from '@evp/actions';
import { runInvId, variantActionId } from './ids';

describe('campaign ids', () => {
  it('are pure functions of their parts', () => {
    expect(variantActionId('app', 'c1', 1)).toBe(variantActionId('app', 'c1', 1));
    expect(runInvId('app', 'c1', 'api:r1')).toBe(runInvId('app', 'c1', 'api:r1'));
  });

  it('differ by app, campaign, variant and run', () => {
    const ids = new Set([
      variantActionId('app', 'c1', 1),
      variantActionId('app', 'c1', 2),
      variantActionId('app', 'c2', 1),
      variantActionId('other', 'c1', 1),
      runInvId('app', 'c1', 'api:r1'),
      runInvId('app', 'c1', 'api:r2'),
    ]);
    expect(ids.size).toBe(6);
  });

  it('are caller-given action store ids: 1 … MAX_GIVEN_ID', () => {
    for (let i = 0; i < 2000; i++) {
      const id = runInvId('app', 'c', `k${i}`);
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(1);
      expect(id).toBeLessThanOrEqual(MAX_GIVEN_ID);
    }
  });
});
