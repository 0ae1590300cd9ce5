import { scenarioContext } from './scenario-kit';
import { scenarios } from './scenarios';

describe('scenario tags', () => {
  it('derive from the scenario id, so no two scenarios of a run send the same uploads', () => {
    const tags = scenarios.map((s) => scenarioContext(s.id, false, 'r1').tag);
    expect(tags).toEqual(scenarios.map((s) => `${s.id}-r1`));
    expect(new Set(tags).size).toBe(scenarios.length);
  });
});
