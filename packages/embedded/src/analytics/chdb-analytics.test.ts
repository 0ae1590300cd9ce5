import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { JsonRow, RowBinaryWriter, stringifyWellFormed } from '@evp/clickhouse';
import { chdbTestPath, describeAnalyticsConformance, testDatabase } from '@evp/testkit/src/conformance/analytics';
import { createChdbAnalytics } from './chdb-analytics';

// One chdb directory per jest worker process (see chdbTestPath); a database of its own keeps this
// file's tables apart from other files in the same worker.
const database = testDatabase('conf');

describeAnalyticsConformance('chdb (in-process ClickHouse via @clickhouse/client)', async () => {
  const analytics = createChdbAnalytics({ path: chdbTestPath(), database });
  return {
    analytics,
    close: async () => {
      await analytics.command(`DROP DATABASE IF EXISTS ${database}`);
      await analytics.close();
    },
  };
});

describe('createChdbAnalytics', () => {
  it('reads RowBinary rows from a file of its own beside its data, removed after the insert whether it succeeded or not', async () => {
    const db = `${database}_rb_file`;
    const analytics = createChdbAnalytics({ path: chdbTestPath(), database: db });
    const files = () => readdirSync(join(chdbTestPath(), 'evp-rowbinary')).filter((f) => f.startsWith(`rowbinary-${process.pid}-`));
    try {
      await analytics.command('CREATE TABLE t (id String) ENGINE = MergeTree ORDER BY id');
      const w = new RowBinaryWriter();
      w.string("it's \\ 'quoted'");
      const row = w.row();
      await analytics.insertRowBinary('t', { columns: ['id'], types: ['String'], rows: [row] });
      await expect(analytics.insertRowBinary('t', { columns: ['id'], types: ['String'], rows: [row, Buffer.from([0x05])] })).rejects.toThrow(
        'insert into t failed',
      );
      expect({ rows: await analytics.query('SELECT id FROM t'), files: files() }).toEqual({ rows: [{ id: "it's \\ 'quoted'" }], files: [] });
    } finally {
      await analytics.command(`DROP DATABASE IF EXISTS ${db}`);
      await analytics.close();
    }
  });

  it('works inside the database it was given', async () => {
    const db = `${database}_own`;
    const analytics = createChdbAnalytics({ path: chdbTestPath(), database: db });
    try {
      expect(await analytics.query('SELECT currentDatabase() AS db')).toEqual([{ db }]);
    } finally {
      await analytics.command(`DROP DATABASE IF EXISTS ${db}`);
      await analytics.close();
    }
  });

  it('stores a JsonRow (text written ahead, as the sink does) exactly as the same values sent as an array', async () => {
    const db = `${database}_json_row`;
    const analytics = createChdbAnalytics({ path: chdbTestPath(), database: db });
    try {
      await analytics.command("CREATE TABLE t (id String, s String, n Nullable(Int32), at DateTime64(3, 'UTC'), doc JSON) ENGINE = MergeTree ORDER BY id");
      const columns = ['id', 's', 'n', 'at', 'doc'];
      const values = (id: string) => [
        id,
        'tab\t nl\n quote" backslash\\ lone\ud800 😀 \u0001',
        null,
        '2024-05-06 07:08:09.010',
        { k: ['v\ud800', 1.5], d: '2024-01-01T10:00:00Z' },
      ];
      await analytics.insert('t', [values('array')], { columns });
      await analytics.insert('t', [new JsonRow(stringifyWellFormed(values('text')))], { columns });
      const rows = await analytics.query<Record<string, unknown>>('SELECT * EXCEPT id FROM t ORDER BY id');
      expect(rows).toHaveLength(2);
      expect(rows[1]).toEqual(rows[0]);
      expect(rows[0]).toEqual({
        s: 'tab\t nl\n quote" backslash\\ lone\ufffd 😀 \u0001',
        n: null,
        at: '2024-05-06 07:08:09.010',
        doc: { k: ['v\ufffd', 1.5], d: '2024-01-01T10:00:00Z' },
      });
    } finally {
      await analytics.command(`DROP DATABASE IF EXISTS ${db}`);
      await analytics.close();
    }
  });

  it('refuses a database name that is not an identifier', () => {
    expect(() => createChdbAnalytics({ path: chdbTestPath(), database: 'a-b' })).toThrow('invalid database name "a-b"');
  });
});
