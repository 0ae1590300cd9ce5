import request from 'supertest';
import { idHash, suppressionKey, topics } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { suppressedOn, waitFor } from '@evp/testkit';
import { SDK, envelope, harness } from './test-fixtures';

const hashKey = 'gateway-suppression-test-key-0123456789';
const userKey = (user: string) => suppressionKey('app-1', idHash(hashKey, 'app-1', 'user', user));

describe('gateway: envelopes of suppressed users', () => {
  it('answers 200, counts them and never produces them; a lift lets them through again', async () => {
    const bus = createInProcessBus();
    const suppressions = await suppressedOn(bus, hashKey, []);
    const s = await harness(bus, { deps: { suppressions } });
    const dropped = async () => (await s.metrics.registry.getSingleMetric('gateway_suppressed_envelopes_total')?.get())?.values[0]?.value;
    const post = (body: object) => request(s.app).post('/v1/ingest/events').set('Authorization', `Bearer ${SDK}`).send(body);
    await s.producer.send(topics.privacySuppressions, [{ key: userKey('u-gone'), value: Buffer.from('{}') }]);

    // A mixed upload: the other user's envelope is stored, the suppressed one's is not; the answer counts both.
    const mixed = await post([envelope('u-gone', 2), envelope('u-kept')]);
    expect([mixed.status, mixed.body.accepted]).toEqual([200, 3]);
    await waitFor(() => s.raw.length === 1 || undefined, { what: 'the kept envelope' });
    expect(s.raw.map((m) => [m.key, m.headers.envelope_index, m.headers.envelope_count])).toEqual([['app-1:u-kept', '0', '1']]);
    // Only the suppressed user's envelopes: 200 as ever, nothing produced.
    const alone = await post(envelope('u-gone'));
    expect(alone.status).toBe(200);
    expect(await dropped()).toBe(2);

    await s.producer.send(topics.privacySuppressions, [{ key: userKey('u-gone'), value: null }]);
    const again = await post(envelope('u-gone'));
    expect(again.status).toBe(200);
    await waitFor(() => s.raw.length === 2 || undefined, { what: 'the envelope after the lift' });
    // The in-process log is ordered: nothing of the suppressed uploads came before it.
    expect(s.raw.map((m) => m.key)).toEqual(['app-1:u-kept', 'app-1:u-gone']);
    expect(await dropped()).toBe(2);
    await suppressions.close();
    await s.close();
  });
});
