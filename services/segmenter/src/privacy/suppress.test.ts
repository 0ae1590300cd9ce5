import { allTopics, createLogger, followSuppressions, topics, type Analytics } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { readSuppression } from '@evp/schemas';
import { useMigratedChdb } from '@evp/testkit';
import { seedPerson } from '../testing';
import { createPrivacyService, suppressionLog, type ErasureRequest } from '.';

const chdb = useMigratedChdb('privacy_suppress');
const logger = createLogger('test', 'silent');
const hashKey = 'suppress-test-key';

describe('suppression on the compacted topic', () => {
  it('publishes the suppression before anything is deleted, and a tombstone when it is lifted', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics(allTopics());
    const set = await followSuppressions(bus, hashKey);
    await set.ready();
    const values: (string | null)[] = [];
    const watch = await bus.follow(topics.privacySuppressions, (_key, value) => void values.push(value === null ? null : value.toString()));
    await seedPerson(chdb.analytics, 'sup', 'u-gone', 'p-gone');
    // What every part knew when the first DELETE ran.
    let knownAtFirstDelete: boolean[] | undefined;
    const analytics: Analytics = {
      ...chdb.analytics,
      command: async (sql, params) => {
        if (/^DELETE/.test(sql) && !knownAtFirstDelete) knownAtFirstDelete = [set.has('sup', 'user', 'u-gone'), set.has('sup', 'patient', 'p-gone')];
        return chdb.analytics.command(sql, params);
      },
    };
    const privacy = createPrivacyService({ analytics, logger, hashKey, ...suppressionLog(await bus.producer()) });
    const request = await privacy.createErasure('sup', [
      { kind: 'user', id: 'u-gone' },
      { kind: 'patient', id: 'p-gone' },
    ]);
    await privacy.runOnce();
    expect(((await privacy.get('sup', 'erasure', request.id)) as ErasureRequest).state).toBe('completed');
    expect(knownAtFirstDelete).toEqual([true, true]);
    expect([set.size(), set.has('sup', 'user', 'p-gone'), set.has('other', 'user', 'u-gone')]).toEqual([2, false, false]);
    // The values: the one field table's shape, hashes only.
    const entries = values.map((v) => readSuppression(JSON.parse(v as string)));
    expect(entries.map((e) => [e.app_id, e.kind, e.request_id]).sort()).toEqual([
      ['sup', 'patient', request.id],
      ['sup', 'user', request.id],
    ]);
    expect(values.some((v) => v?.includes('u-gone') || v?.includes('p-gone'))).toBe(false);

    expect(await privacy.liftSuppression('sup', 'u-gone')).toBe(true);
    expect([set.has('sup', 'user', 'u-gone'), set.has('sup', 'patient', 'p-gone'), values.at(-1)]).toEqual([false, true, null]);
    expect((await privacy.suppressions('sup')).map((s) => s.kind)).toEqual(['patient']);
    await Promise.all([watch.stop(), set.close(), bus.close()]);
  });
});
