import { CANONICAL_FIELDS, DEAD_LETTER_FIELDS, REJECTED_FIELDS, type RecordField } from '@evp/schemas';
import { useMigratedChdb } from '@evp/testkit';
import { ROW_BINARY_TABLES, STAMPED_ROW_BINARY, TABLES } from './rows';

// The field tables against the tables as the migrations leave them (every migration applied on
// chdb): a field added to a table needs a migration adding its column, in the same place.
const chdb = useMigratedChdb('record_columns');

const columnsOf = (table: string) =>
  chdb.analytics.query<{ name: string; type: string }>(
    `SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {table:String} ORDER BY position`,
    {
      db: chdb.database,
      table,
    },
  );

const NOT_FIELDS = [
  { name: 'inserted_at', type: "DateTime64(3, 'UTC')" },
  { name: 'retention_days', type: 'UInt16' },
];

const expected = (fields: readonly RecordField[]) => [
  ...fields.map((f) => ({ name: f.name, type: f.clickhouse })),
  // Not fields: the server's insert time, and the retention the sink stamps (016_retention.sql).
  ...NOT_FIELDS,
];

describe('field tables and the migrated ClickHouse tables', () => {
  it('events has exactly the CANONICAL_FIELDS columns, in order, with their types', async () => {
    expect(await columnsOf(TABLES.events)).toEqual(expected(CANONICAL_FIELDS));
  });

  it('rejected has exactly the REJECTED_FIELDS columns, in order, with their types', async () => {
    expect(await columnsOf(TABLES.rejected)).toEqual(expected(REJECTED_FIELDS));
  });

  it('dead_letters has exactly the DEAD_LETTER_FIELDS columns, in order, with their types', async () => {
    expect(await columnsOf(TABLES.deadLetters)).toEqual(expected(DEAD_LETTER_FIELDS));
  });

  it.each([...ROW_BINARY_TABLES.keys()])(
    '%s: the RowBinary layout the sink writes is the migrated table’s columns, in order, with their types',
    async (table) => {
      // What the sink inserts: the field columns, then the retention stamp; inserted_at is the server's.
      const layout = STAMPED_ROW_BINARY.get(table) as { columns: readonly string[]; types: readonly string[] };
      const written = layout.columns.map((name, i) => ({ name, type: layout.types[i] }));
      const migrated = await columnsOf(table);
      expect(written).toEqual(migrated.filter((c) => c.name !== 'inserted_at'));
    },
  );
});
