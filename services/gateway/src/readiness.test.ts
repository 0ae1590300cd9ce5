import request from 'supertest';
import { InfraError, allTopics, topics } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { harness } from './test-fixtures';
import { gatewayReadiness } from './readiness';

describe('gateway readiness', () => {
  it('is ready when the broker answers and the raw topic exists', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics(allTopics());
    expect(await gatewayReadiness({ bus })()).toEqual([]);
    await bus.close();
  });

  it('names a missing topic', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 'other', partitions: 1 }]);
    expect(await gatewayReadiness({ bus })()).toEqual([`topic ${topics.raw} is missing`]);
    await bus.close();
  });

  it('reports an unreachable broker instead of throwing', async () => {
    const listTopics = async (): Promise<string[]> => {
      throw new InfraError('kafka', 'list topics: connection refused', { retriable: true });
    };
    expect(await gatewayReadiness({ bus: { listTopics } })()).toEqual(['kafka unreachable: kafka: list topics: connection refused']);
  });

  it('is not ready while draining', async () => {
    let draining = false;
    const check = gatewayReadiness({ bus: { listTopics: async () => [topics.raw] }, isDraining: () => draining });
    expect(await check()).toEqual([]);
    draining = true;
    expect(await check()).toEqual(['shutting down']);
  });

  it('drives GET /readyz: 200 when ready, 503 with the problems otherwise', async () => {
    let existing = [topics.raw];
    const s = await harness(createInProcessBus(), { deps: { readiness: gatewayReadiness({ bus: { listTopics: async () => existing } }) } });
    expect((await request(s.app).get('/readyz')).body).toEqual({ ready: true, problems: [] });
    existing = [];
    const res = await request(s.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ready: false, problems: [`topic ${topics.raw} is missing`] });
    await s.close();
  });
});
