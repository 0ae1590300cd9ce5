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

describe('gateway readiness while the broker is frozen', () => {
  it('answers within its bound and shares one hanging check between probes', async () => {
    let frozen = false;
    let calls = 0;
    const listTopics = (): Promise<string[]> => {
      calls++;
      // A frozen broker: the request neither succeeds nor fails.
      return frozen ? new Promise<string[]>(() => undefined) : Promise.resolve([topics.raw]);
    };
    const check = gatewayReadiness({ bus: { listTopics }, answerWithinMs: 100 });
    expect(await check()).toEqual([]);
    frozen = true;
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      expect(await check()).toEqual(['kafka did not answer within 100 ms']);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    // The probes share the one hanging check instead of piling requests on the broker.
    expect(calls).toBe(2);
  });

  it('answers GET /readyz with 503 within 1 s with the default bound', async () => {
    const s = await harness(createInProcessBus(), {
      deps: { readiness: gatewayReadiness({ bus: { listTopics: () => new Promise<string[]>(() => undefined) } }) },
    });
    const started = Date.now();
    const res = await request(s.app).get('/readyz');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ready: false, problems: ['kafka did not answer within 800 ms'] });
    await s.close();
  });
});
