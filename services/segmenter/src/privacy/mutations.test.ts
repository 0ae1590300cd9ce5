import { InfraError } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import { mutationsDone } from './mutations';

const chdb = useMigratedChdb('privacy_mutations');

describe('waiting for an erasure’s mutations (mutations.ts)', () => {
  const pending = async (table: string) =>
    Number(
      (
        await chdb.analytics.query<{ n: number }>(
          'SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = {table:String} AND NOT is_done',
          { table },
        )
      )[0]?.n,
    );

  it('returns once a DELETE and a mask rewrite issued without waiting are done: the rows are gone from the parts', async () => {
    const db = chdb.analytics;
    await db.command('CREATE TABLE probe_done (id UInt64, user String) ENGINE = MergeTree ORDER BY id');
    await db.command('INSERT INTO probe_done SELECT number, toString(number % 1000) FROM numbers(500000)');
    await db.command("DELETE FROM probe_done WHERE user IN ('1', '2') SETTINGS lightweight_deletes_sync = 0");
    await mutationsDone(db, 'probe_done', { pollMs: 20 });
    expect(await pending('probe_done')).toBe(0);
    await db.command('ALTER TABLE probe_done APPLY DELETED MASK SETTINGS mutations_sync = 0');
    await mutationsDone(db, 'probe_done', { pollMs: 20 });
    expect(await pending('probe_done')).toBe(0);
    // 500 rows of each user deleted; with the mask ignored too, so rewritten, not only masked.
    const [counted] = await db.query<{ n: number }>('SELECT count() AS n FROM probe_done SETTINGS apply_deleted_mask = 0');
    expect(Number(counted?.n)).toBe(499_000);
  });

  it('throws a retriable error naming the table and ClickHouse’s reason when a mutation fails', async () => {
    const db = chdb.analytics;
    await db.command('CREATE TABLE probe_fails (id UInt64, v UInt64) ENGINE = MergeTree ORDER BY id');
    await db.command('INSERT INTO probe_fails SELECT number, number FROM numbers(10)');
    await db.command("ALTER TABLE probe_fails UPDATE v = throwIf(v < 100, 'no-such-luck') WHERE 1 SETTINGS mutations_sync = 0");
    const err: unknown = await mutationsDone(db, 'probe_fails', { pollMs: 20 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect((err as InfraError).retriable).toBe(true);
    expect((err as InfraError).message).toMatch(/^clickhouse: a mutation of probe_fails fails: .*no-such-luck/);
    await db.command("KILL MUTATION WHERE database = currentDatabase() AND table = 'probe_fails'");
    expect(await pending('probe_fails')).toBe(0);
  });

  it('gives up at its deadline with a retriable error, the mutation still running', async () => {
    const db = chdb.analytics;
    await db.command('CREATE TABLE probe_slow (id UInt64, v UInt64) ENGINE = MergeTree ORDER BY id');
    await db.command('INSERT INTO probe_slow SELECT number, number FROM numbers(4)');
    // 4 rows × 0.5 s: a mutation that runs for about 2 s.
    await db.command('ALTER TABLE probe_slow UPDATE v = v + sleepEachRow(0.5) WHERE 1 SETTINGS mutations_sync = 0');
    let clock = 0;
    const err: unknown = await mutationsDone(db, 'probe_slow', {
      timeoutMs: 1_000,
      now: () => clock,
      sleep: async (ms) => void (clock += ms),
      pollMs: 500,
    }).catch((e: unknown) => e);
    expect((err as InfraError).message).toBe('clickhouse: 1 mutation(s) of probe_slow not done after 1000 ms');
    expect((err as InfraError).retriable).toBe(true);
    // And done when awaited for real.
    await mutationsDone(db, 'probe_slow', { pollMs: 50 });
    expect(await pending('probe_slow')).toBe(0);
  });
});
