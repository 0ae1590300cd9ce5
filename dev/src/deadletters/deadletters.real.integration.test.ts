import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { UnreadableMessageError, createLogger, topics, type Subscription } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { uniqueName, waitFor } from '@evp/testkit';

/**
 * Dead letters end to end on the real broker, through the real command (`npm run deadletters`, run
 * as a process): a message a consumer cannot read is dead-lettered in the one envelope and its
 * partition moves on; `list` finds it by source topic; the consumer is "fixed"; `replay --id` puts
 * it back with its original key, value and headers plus the replay headers, and it is consumed
 * exactly once. The source topic is this test's own; `deadletters` is the shared one.
 */
const root = resolve(__dirname, '../../..');
const logger = createLogger('deadletters-it', 'silent');
const brokers = process.env.KAFKA_BROKERS as string;
const bus = createKafkaBus({ brokers: brokers.split(','), clientId: uniqueName('deadletters-it'), logger });
const subs: Subscription[] = [];

afterAll(async () => {
  await Promise.all(subs.map((s) => s.stop()));
  await bus.close();
});

/** Runs the command as `npm run deadletters -- …` does; its stdout as parsed JSON lines. */
async function cli(...args: string[]): Promise<Record<string, unknown>[]> {
  const { stdout } = await promisify(execFile)(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, 'dev/src/deadletters/main.ts'), ...args], {
    cwd: root,
    env: { ...process.env, KAFKA_BROKERS: brokers },
  });
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

it('dead-letters what a consumer cannot read, lists it, and replays it after the fix: consumed exactly once', async () => {
  const topic = uniqueName('dlq-it-source');
  const group = uniqueName('dlq-it-group');
  await bus.ensureTopics([
    { name: topic, partitions: 1 },
    { name: topics.deadLetters, partitions: 3 },
  ]);
  let fixed = false;
  const handled: { value: string; headers: Record<string, string> }[] = [];
  subs.push(
    await bus.subscribe({
      groupId: group,
      topics: [topic],
      processor: { name: 'dlq-it-consumer', version: '1.2.3' },
      handleBatch: async (batch) => {
        for (const m of batch.messages) {
          if (!fixed && m.value.toString().startsWith('v2:')) throw new UnreadableMessageError('invalid', 'format v2 is not known yet');
        }
        handled.push(...batch.messages.map((m) => ({ value: m.value.toString(), headers: m.headers })));
      },
    }),
  );
  const producer = await bus.producer();
  await producer.send(topic, [
    { key: 'k', value: Buffer.from('v1:a') },
    { key: 'k', value: Buffer.from('v2:b'), headers: { app_id: 'app-dlq', trace: 't-1' } },
    { key: 'k', value: Buffer.from('v1:c') },
  ]);
  await waitFor(() => handled.some((h) => h.value === 'v1:c') || undefined, { timeoutMs: 60_000, what: 'the messages around the bad one' });
  expect(handled.map((h) => h.value)).toEqual(['v1:a', 'v1:c']);

  // list: exactly the one dead letter of this topic, in the one envelope.
  const listed = await cli('list', '--topic', topic);
  expect(listed.at(-1)).toEqual({ dead_letters: 1 });
  const letter = listed[0] as Record<string, unknown>;
  expect({ ...letter, id: typeof letter.id, failed_at: typeof letter.failed_at }).toEqual({
    id: 'string',
    failed_at: 'string',
    source: { topic, partition: 0, offset: '1', key: 'k' },
    group,
    error: { kind: 'invalid', message: 'format v2 is not known yet', retriable: false },
    processor: { name: 'dlq-it-consumer', version: '1.2.3' },
    replay: null,
    headers: { app_id: 'app-dlq', trace: 't-1' },
    value_bytes: 4,
    value_preview: 'v2:b',
  });
  expect(Math.abs(Date.parse(letter.failed_at as string) - Date.now())).toBeLessThan(120_000);
  expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topic, group, count: 1 }]);
  // Filters narrow: another group, or a window before it failed, match nothing.
  expect((await cli('list', '--topic', topic, '--group', 'another-group')).at(-1)).toEqual({ dead_letters: 0 });
  expect((await cli('list', '--topic', topic, '--until', '2000-01-01T00:00:00Z')).at(-1)).toEqual({ dead_letters: 0 });

  // The fix, then the replay of that one dead letter.
  fixed = true;
  const id = letter.id as string;
  expect(await cli('replay', '--id', id)).toEqual([{ replayed: id, topic, replay_count: 1 }, { replayed_total: 1 }]);
  // A message after it on the same partition: once it is handled, so is everything before it.
  await producer.send(topic, [{ key: 'k', value: Buffer.from('v1:end') }]);
  await waitFor(() => handled.some((h) => h.value === 'v1:end') || undefined, { timeoutMs: 60_000, what: 'the replayed message and the one after it' });
  expect(handled.map((h) => h.value)).toEqual(['v1:a', 'v1:c', 'v2:b', 'v1:end']);
  expect(handled[2]?.headers).toEqual({ app_id: 'app-dlq', trace: 't-1', replay_of: id, replay_count: '1' });
  expect(Object.keys(handled[2]?.headers ?? {}).some((k) => k.startsWith('dlq_'))).toBe(false);
  // Nothing new was dead-lettered.
  expect((await cli('list', '--topic', topic)).at(-1)).toEqual({ dead_letters: 1 });
  await producer.close();
});

it('refuses a replay without --id or --all, and names ids it cannot find', async () => {
  await expect(cli('replay', '--topic', 'x')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('replay needs --id ID (repeatable) or --all') });
  await expect(cli('replay', '--id', 'no-such-id', '--topic', uniqueName('nothing'))).rejects.toMatchObject({
    code: 1,
    stdout: `${JSON.stringify({ error: 'no dead letter with these ids matches the filters', ids: ['no-such-id'] })}\n`,
  });
});
