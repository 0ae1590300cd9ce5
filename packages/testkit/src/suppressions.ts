import { allTopics, followSuppressions, idHash, suppressionKey, topics, type Bus, type ErasableKind, type SuppressionSet } from '@evp/core';

/**
 * A bus on which these people are suppressed (as an erasure publishes them, with any value: readers
 * look at the key), and a SuppressionSet that has read them: what a part under test is given.
 */
export async function suppressedOn(bus: Bus, hashKey: string, people: { appId: string; kind: ErasableKind; id: string }[]): Promise<SuppressionSet> {
  await bus.ensureTopics(allTopics());
  const producer = await bus.producer();
  await producer.send(
    topics.privacySuppressions,
    people.map((p) => ({ key: suppressionKey(p.appId, idHash(hashKey, p.appId, p.kind, p.id)), value: Buffer.from('{}') })),
  );
  await producer.close();
  const set = await followSuppressions(bus, hashKey);
  await set.ready();
  return set;
}
