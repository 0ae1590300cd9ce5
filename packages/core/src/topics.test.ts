import { TOPIC_RETENTION_MS, allTopics, topics } from './topics';

const DAY = 86_400_000;

describe('the platform topics’ retention', () => {
  it('bounds every topic: none keeps a message forever or longer than two weeks', () => {
    const unbounded = allTopics().filter(
      (t) => !t.compacted && !(t.retentionMs !== undefined && Number.isSafeInteger(t.retentionMs) && t.retentionMs > 0 && t.retentionMs <= 14 * DAY),
    );
    expect(unbounded).toEqual([]);
  });

  it('compacts only the suppression topic, which holds keyed hashes of ids and no data', () => {
    expect(
      allTopics()
        .filter((t) => t.compacted)
        .map((t) => [t.name, t.retentionMs]),
    ).toEqual([[topics.privacySuppressions, undefined]]);
  });

  it('gives each kind of topic its stated retention', () => {
    const byName = Object.fromEntries(allTopics().map((t) => [t.name, t.retentionMs]));
    expect([
      byName[topics.raw],
      byName[topics.events('core')],
      byName[topics.actionsFeedback],
      byName[topics.catalog('patient')],
      byName[topics.deadLetters],
      byName[topics.segmentsWork],
    ]).toEqual([3 * DAY, 7 * DAY, 7 * DAY, 7 * DAY, 14 * DAY, DAY]);
    // Raw uploads, the full payloads, are the shortest-lived copy of anyone's data but work items.
    expect(TOPIC_RETENTION_MS.raw).toBeLessThan(TOPIC_RETENTION_MS.stream);
  });
});
