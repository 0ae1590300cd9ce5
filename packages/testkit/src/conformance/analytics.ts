import { RowBinaryWriter, rowBinaryEncoder } from '@evp/clickhouse';
import { type Analytics, InfraError } from '@evp/core';
import { chdbScratchPath } from '@evp/embedded';

/**
 * The chdb data directory for tests in this process: `chdbScratchPath()`, one directory per process.
 * libchdb binds one directory per process while jest gives every test file fresh modules, so every
 * chdb test file of a worker must name the same directory (same-directory connections coexist) and
 * keep its tables apart with a database of its own (`testDatabase`). `path: ':memory:'` in
 * createChdbAnalytics resolves to the same directory.
 */
export const chdbTestPath = (): string => chdbScratchPath();

/** A database name of its own for one test file (identifiers only). */
export const testDatabase = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;

export interface AnalyticsUnderTest {
  /** Bound to a database of its own (tests create and drop tables freely). */
  analytics: Analytics;
  close(): Promise<void>;
}

let counter = 0;
/** Table names go into SQL text, so they are plain identifiers. */
const freshTable = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

/** Rows of value arrays as RowBinary, one buffer per row, each value written as its type says. */
function rowBinary(types: readonly string[], rows: readonly (readonly unknown[])[]): Buffer[] {
  const w = new RowBinaryWriter();
  const encoders = types.map(rowBinaryEncoder);
  return rows.map((values) => {
    encoders.forEach((encode, i) => encode(w, values[i]));
    return w.row();
  });
}

async function expectInfraError(p: Promise<unknown>, retriable: boolean): Promise<InfraError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InfraError);
  const e = caught as InfraError;
  expect({ dependency: e.dependency, retriable: e.retriable }).toEqual({ dependency: 'clickhouse', retriable });
  return e;
}

/**
 * One suite for every Analytics adapter: what the sink, segments and analysts rely on, with exact
 * values. Results render 64-bit integers as JSON numbers (values past 2^53 are read with toString)
 * and DateTime64 as `YYYY-MM-DD hh:mm:ss.sss`; the expectations spell that out.
 */
export function describeAnalyticsConformance(name: string, make: () => Promise<AnalyticsUnderTest>) {
  describe(`Analytics conformance: ${name}`, () => {
    let sut: AnalyticsUnderTest;
    let a: Analytics;
    beforeAll(async () => {
      sut = await make();
      a = sut.analytics;
    });
    afterAll(async () => {
      await sut?.close();
    });

    it('answers ping', async () => {
      expect(await a.ping()).toBe(true);
    });

    it('runs DDL: create, exists, drop', async () => {
      const t = freshTable('ddl');
      await a.command(`CREATE TABLE ${t} (id String) ENGINE = MergeTree ORDER BY id`);
      expect(await a.query(`EXISTS TABLE ${t}`)).toEqual([{ result: 1 }]);
      await a.command(`DROP TABLE ${t}`);
      expect(await a.query(`EXISTS TABLE ${t}`)).toEqual([{ result: 0 }]);
    });

    it('round-trips rows exactly: nulls, DateTime64(3), LowCardinality, Bool, arrays, named tuples, JSON', async () => {
      const t = freshTable('rt');
      await a.command(`CREATE TABLE ${t} (
        id String,
        lc LowCardinality(String),
        lcn LowCardinality(Nullable(String)),
        s Nullable(String),
        n Nullable(Int32),
        big Int64,
        f Float64,
        ok Bool,
        at DateTime64(3, 'UTC'),
        atn Nullable(DateTime64(3, 'UTC')),
        tags Array(String),
        errs Array(Tuple(path String, rule String)),
        doc JSON
      ) ENGINE = MergeTree ORDER BY id`);
      await a.insert(t, [
        {
          id: 'a',
          lc: 'android',
          lcn: null,
          s: null,
          n: null,
          big: '9007199254740993',
          f: 0.5,
          ok: true,
          at: '2024-02-29 23:59:59.999',
          atn: null,
          tags: [],
          errs: [],
          doc: {},
        },
        {
          id: 'b',
          lc: 'ios',
          lcn: 'x',
          s: 'it\'s "quoted" \\ ünï',
          n: -7,
          big: '-1',
          f: 1e-3,
          ok: false,
          at: '1970-01-01 00:00:00.001',
          atn: '2024-01-01 00:00:00.000',
          tags: ['p', 'q'],
          errs: [{ path: '$.a', rule: 'required' }],
          doc: { path: '/home', n: 3, x: 1.5, when: '2024-01-01T10:00:00Z', day: '2024-01-01', list: [{ id: 'i1' }], o: { k: 'v' } },
        },
      ]);
      expect(await a.query(`SELECT * FROM ${t} ORDER BY id`)).toEqual([
        {
          id: 'a',
          lc: 'android',
          lcn: null,
          s: null,
          n: null,
          big: 9007199254740992, // a JS number cannot be …993: see the toString() check below
          f: 0.5,
          ok: true,
          at: '2024-02-29 23:59:59.999',
          atn: null,
          tags: [],
          errs: [],
          doc: {},
        },
        {
          id: 'b',
          lc: 'ios',
          lcn: 'x',
          s: 'it\'s "quoted" \\ ünï',
          n: -7,
          big: -1,
          f: 0.001,
          ok: false,
          at: '1970-01-01 00:00:00.001',
          atn: '2024-01-01 00:00:00.000',
          tags: ['p', 'q'],
          errs: [{ path: '$.a', rule: 'required' }],
          // Strings inside JSON stay as sent (no date inference); numbers keep their JSON value.
          doc: { day: '2024-01-01', list: [{ id: 'i1' }], n: 3, o: { k: 'v' }, path: '/home', when: '2024-01-01T10:00:00Z', x: 1.5 },
        },
      ]);
      expect(
        await a.query(
          `SELECT toTypeName(lc) AS lc_type, toTypeName(at) AS at_type, toUnixTimestamp64Milli(at) AS ms, doc.path::String AS p FROM ${t} WHERE id = 'b'`,
        ),
      ).toEqual([{ lc_type: 'LowCardinality(String)', at_type: "DateTime64(3, 'UTC')", ms: 1, p: '/home' }]);
      expect(await a.query(`SELECT toString(big) AS big FROM ${t} WHERE id = 'a'`)).toEqual([{ big: '9007199254740993' }]);
    });

    it('inserts value arrays in a given column order exactly (JSONCompactEachRow), escapes and defaults included', async () => {
      const t = freshTable('cols');
      await a.command(`CREATE TABLE ${t} (
        id String,
        s Nullable(String),
        lc LowCardinality(Nullable(String)),
        n Nullable(Int32),
        ok Bool,
        at DateTime64(3, 'UTC'),
        atn Nullable(DateTime64(3, 'UTC')),
        kind Enum8('current' = 1, 'earlier' = 2),
        errs Array(Tuple(path String, rule String)),
        doc JSON,
        filled String DEFAULT 'default'
      ) ENGINE = MergeTree ORDER BY id`);
      // Every character JSON or a text format must escape, and some that only look special.
      const nasty = 'tab\there\nnew line\r\\back\\slash \'single\' "double" \\N \u0000\u0001 ünï 😀 \u2028 {"j":1} [x]';
      const columns = ['id', 's', 'lc', 'n', 'ok', 'at', 'atn', 'kind', 'errs', 'doc'];
      await a.insert(
        t,
        [
          ['a', null, null, null, true, '2024-02-29 23:59:59.999', null, 'current', [], {}],
          [
            'b',
            nasty,
            nasty,
            -7,
            false,
            '1970-01-01 00:00:00.001',
            '2024-01-01 00:00:00.000',
            'earlier',
            [{ path: nasty, rule: 'r' }],
            { s: nasty, when: '2024-01-01T10:00:00Z', day: '2024-01-01', n: 3, x: 1.5, list: [{ id: 'i1' }] },
          ],
          ['c', '', '', 0, true, '2024-01-01 00:00:00.000', null, 'current', [], { empty: '' }],
        ],
        { columns },
      );
      expect(await a.query(`SELECT * FROM ${t} ORDER BY id`)).toEqual([
        { id: 'a', s: null, lc: null, n: null, ok: true, at: '2024-02-29 23:59:59.999', atn: null, kind: 'current', errs: [], doc: {}, filled: 'default' },
        {
          id: 'b',
          s: nasty,
          lc: nasty,
          n: -7,
          ok: false,
          at: '1970-01-01 00:00:00.001',
          atn: '2024-01-01 00:00:00.000',
          kind: 'earlier',
          errs: [{ path: nasty, rule: 'r' }],
          // Strings inside JSON stay as sent (no date inference); numbers keep their JSON value.
          doc: { day: '2024-01-01', list: [{ id: 'i1' }], n: 3, s: nasty, when: '2024-01-01T10:00:00Z', x: 1.5 },
          filled: 'default',
        },
        // An empty string stays empty, not NULL.
        { id: 'c', s: '', lc: '', n: 0, ok: true, at: '2024-01-01 00:00:00.000', atn: null, kind: 'current', errs: [], doc: { empty: '' }, filled: 'default' },
      ]);
      expect(
        await a.query(`SELECT length(s) AS len, toUnixTimestamp64Milli(at) AS ms, isNull(atn) AS no_atn, doc.s::String = s AS same FROM ${t} WHERE id = 'b'`),
      ).toEqual([{ len: Buffer.byteLength(nasty, 'utf8'), ms: 1, no_atn: 0, same: 1 }]);
    });

    it('treats value arrays and objects alike: the same rows read back the same, the dedup token holds for both', async () => {
      const t = freshTable('forms');
      await a.command(
        `CREATE TABLE ${t} (id UInt32, s String, at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`,
      );
      const s = 'x\ty\\z\n"ü"';
      await a.insert(t, [{ id: 1, s, at: '2024-05-06 07:08:09.010' }]);
      await a.insert(t, [[2, s, '2024-05-06 07:08:09.010']], { columns: ['id', 's', 'at'], dedupToken: 'cols-a' });
      await a.insert(t, [[3, s, '2024-05-06 07:08:09.010']], { columns: ['id', 's', 'at'], dedupToken: 'cols-a' });
      expect(await a.query(`SELECT id, s, at FROM ${t} ORDER BY id`)).toEqual([
        { id: 1, s, at: '2024-05-06 07:08:09.010' },
        { id: 2, s, at: '2024-05-06 07:08:09.010' },
      ]);
    });

    it('refuses value arrays of the wrong shape and bad column names before anything is written', async () => {
      const t = freshTable('shape');
      await a.command(`CREATE TABLE ${t} (id String, v Nullable(UInt32)) ENGINE = MergeTree ORDER BY id`);
      const short = await expectInfraError(a.insert(t, [['a', 1], ['b']], { columns: ['id', 'v'] }), false);
      expect(short.message).toBe(`clickhouse: insert into ${t} refused: row 1: expected an array of 2 values (one per column)`);
      await expectInfraError(a.insert(t, [{ id: 'a', v: 1 }], { columns: ['id', 'v'] }), false);
      await expectInfraError(a.insert(t, [['a', 1]], { columns: ['id', 'v) SELECT 1 --'] }), false);
      await expectInfraError(a.insert(t, [['a']], { columns: [] }), false);
      expect(await a.query(`SELECT count() AS c FROM ${t}`)).toEqual([{ c: 0 }]);
    });

    describe('RowBinary rows', () => {
      const RB_COLUMNS = ['id', 'lc', 'lcn', 's', 'n', 'u', 'big', 'ok', 'at', 'atn', 'kind', 'tags', 'errs', 'm', 'doc', 'text'];
      const RB_TYPES = [
        'String',
        'LowCardinality(String)',
        'LowCardinality(Nullable(String))',
        'Nullable(String)',
        'Nullable(Int32)',
        'UInt32',
        'Int64',
        'Bool',
        "DateTime64(3, 'UTC')",
        "Nullable(DateTime64(3, 'UTC'))",
        "Enum8('current' = 1, 'earlier' = 2)",
        'Array(String)',
        'Array(Tuple(path String, rule String, message String))',
        'Map(String, String)',
        'JSON',
        'Nullable(String)',
      ];
      const createTable = async (t: string) =>
        a.command(
          `CREATE TABLE ${t} (${RB_COLUMNS.map((c, i) => `${c} ${RB_TYPES[i] as string}`).join(', ')}, filled String DEFAULT 'default') ` +
            'ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100',
        );
      // Bytes a text body or a raw insert would mangle: two newlines in a row (chdb's raw insert cuts
      // a body there), NUL, bytes ≥ 0x80, an emoji; a lone surrogate becomes U+FFFD, as in JSON rows.
      const tricky = 'a\n\nb\u0000c ünï 😀 \t\\ \'"';
      // A DateTime64 whose Int64 holds 0x0A 0x0A in its low bytes.
      const newlinesMs = Math.floor(1_700_000_000_000 / 65_536) * 65_536 + 0x0a0a;

      it('round-trips every column type exactly, tricky strings and JSON text included', async () => {
        const t = freshTable('rb');
        await createTable(t);
        const rows = [
          ['a', 'android', null, null, null, 0, 0, true, 0, null, 'current', [], [], {}, '{}', null],
          [
            'b',
            tricky,
            tricky,
            tricky,
            -7,
            4_294_967_295,
            -9_007_199_254_740_991,
            false,
            newlinesMs,
            -1,
            'earlier',
            [tricky, '', 'x\ud800'],
            [{ path: tricky, rule: 'r', message: 'm' }],
            { [tricky]: tricky, k: '' },
            JSON.stringify({ s: tricky, when: '2024-01-01T10:00:00Z', day: '2024-01-01', n: 3, x: 1.5, list: [{ id: 'i1' }] }),
            '{"any":["json",1]}',
          ],
          ['c', '', '', '', 0, 1, 1, true, Date.UTC(2299, 11, 31, 23, 59, 59, 999), Date.UTC(1900, 0, 1), 'current', [''], [], { '': '' }, '{"empty":""}', '3'],
        ];
        await a.insertRowBinary(t, { columns: RB_COLUMNS, types: RB_TYPES, rows: rowBinary(RB_TYPES, rows) });
        const fffd = 'x\ufffd';
        expect(await a.query(`SELECT * FROM ${t} ORDER BY id`)).toEqual([
          {
            id: 'a',
            lc: 'android',
            lcn: null,
            s: null,
            n: null,
            u: 0,
            big: 0,
            ok: true,
            at: '1970-01-01 00:00:00.000',
            atn: null,
            kind: 'current',
            tags: [],
            errs: [],
            m: {},
            doc: {},
            text: null,
            filled: 'default',
          },
          {
            id: 'b',
            lc: tricky,
            lcn: tricky,
            s: tricky,
            n: -7,
            u: 4_294_967_295,
            big: -9_007_199_254_740_991,
            ok: false,
            at: new Date(newlinesMs).toISOString().replace('T', ' ').replace('Z', ''),
            atn: '1969-12-31 23:59:59.999',
            kind: 'earlier',
            tags: [tricky, '', fffd],
            errs: [{ path: tricky, rule: 'r', message: 'm' }],
            m: { [tricky]: tricky, k: '' },
            // Strings inside JSON stay as sent (no date inference); numbers keep their JSON value.
            doc: { day: '2024-01-01', list: [{ id: 'i1' }], n: 3, s: tricky, when: '2024-01-01T10:00:00Z', x: 1.5 },
            text: '{"any":["json",1]}',
            filled: 'default',
          },
          {
            id: 'c',
            lc: '',
            lcn: '',
            s: '',
            n: 0,
            u: 1,
            big: 1,
            ok: true,
            at: '2299-12-31 23:59:59.999',
            atn: '1900-01-01 00:00:00.000',
            kind: 'current',
            tags: [''],
            errs: [],
            m: { '': '' },
            doc: { empty: '' },
            text: '3',
            filled: 'default',
          },
        ]);
        expect(
          await a.query(
            `SELECT toUnixTimestamp64Milli(at) AS ms, length(s) AS len, dynamicType(doc.when) AS when_type, doc.s::String = s AS same FROM ${t} WHERE id = 'b'`,
          ),
        ).toEqual([{ ms: newlinesMs, len: Buffer.byteLength(tricky), when_type: 'String', same: 1 }]);
      });

      it('makes a repeated insert with the same dedup token a no-op, and an empty insert nothing', async () => {
        const t = freshTable('rbdedup');
        await createTable(t);
        const row = (id: string) => [id, 'l', null, null, null, 1, 1, true, newlinesMs, null, 'current', [], [], {}, '{}', null];
        const block = (ids: string[]) => ({ columns: RB_COLUMNS, types: RB_TYPES, rows: rowBinary(RB_TYPES, ids.map(row)) });
        const ids = async () => (await a.query<{ id: string }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id);
        await a.insertRowBinary(t, block(['a', 'b']), { dedupToken: 'rb-a' });
        await a.insertRowBinary(t, block(['a', 'b']), { dedupToken: 'rb-a' });
        expect(await ids()).toEqual(['a', 'b']);
        await a.insertRowBinary(t, block(['a', 'b']), { dedupToken: 'rb-b' });
        // The token of the last insert does not stick to the next one (chdb sets it on its session).
        await a.insertRowBinary(t, block(['c']));
        await a.insertRowBinary(t, block(['c']));
        await a.insertRowBinary(t, block([]), { dedupToken: 'rb-c' });
        expect(await ids()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
      });

      it('reports rows that do not match their types as a non-retriable InfraError, and stores none of them', async () => {
        const t = freshTable('rbbad');
        await createTable(t);
        const good = rowBinary(RB_TYPES, [['a', 'l', null, null, null, 1, 1, true, 0, null, 'current', [], [], {}, '{}', null]]);
        // A string whose length says more bytes than the row holds.
        const cut = Buffer.from([0x7f, 0x61]);
        const e = await expectInfraError(a.insertRowBinary(t, { columns: RB_COLUMNS, types: RB_TYPES, rows: [...good, cut] }), false);
        expect(e.message).toContain(`insert into ${t} failed`);
        // JSON text that is no JSON object.
        const notJson = rowBinary(RB_TYPES, [['b', 'l', null, null, null, 1, 1, true, 0, null, 'current', [], [], {}, '{"open": ', null]]);
        await expectInfraError(a.insertRowBinary(t, { columns: RB_COLUMNS, types: RB_TYPES, rows: notJson }), false);
        await expectInfraError(a.insertRowBinary(t, { columns: ['id'], types: ['String', 'String'], rows: [] }), false);
        await expectInfraError(a.insertRowBinary(t, { columns: ['id) SELECT 1 --'], types: ['String'], rows: good }), false);
        expect(await a.query(`SELECT count() AS c FROM ${t}`)).toEqual([{ c: 0 }]);
      });
    });

    it('binds {name:Type} parameters in queries and commands, quotes included', async () => {
      expect(
        await a.query("SELECT {s:String} AS s, {n:UInt32} AS n, {d:DateTime64(3, 'UTC')} AS d, {xs:Array(String)} AS xs", {
          s: 'o\'brien \\ "x"',
          n: 42,
          d: '2024-05-06 07:08:09.010',
          xs: ['a', "b'c"],
        }),
      ).toEqual([{ s: 'o\'brien \\ "x"', n: 42, d: '2024-05-06 07:08:09.010', xs: ['a', "b'c"] }]);
      const t = freshTable('params');
      await a.command(`CREATE TABLE ${t} (id String, v UInt32) ENGINE = MergeTree ORDER BY id`);
      await a.command(`INSERT INTO ${t} SELECT {id:String}, {v:UInt32}`, { id: "x'1", v: 7 });
      await a.insert(t, [{ id: 'y', v: 8 }]);
      expect(await a.query(`SELECT id, v FROM ${t} WHERE id = {id:String}`, { id: "x'1" })).toEqual([{ id: "x'1", v: 7 }]);
    });

    it('makes a repeated insert with the same dedup token a no-op, and only that insert', async () => {
      const t = freshTable('dedup');
      await a.command(`CREATE TABLE ${t} (id UInt32) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`);
      const ids = async () => (await a.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id);
      await a.insert(t, [{ id: 1 }, { id: 2 }], { dedupToken: 'batch-a' });
      await a.insert(t, [{ id: 1 }, { id: 2 }], { dedupToken: 'batch-a' });
      expect(await ids()).toEqual([1, 2]);
      // The token, not the content, decides: same token with other rows is still a duplicate…
      await a.insert(t, [{ id: 3 }], { dedupToken: 'batch-a' });
      expect(await ids()).toEqual([1, 2]);
      // …a new token with the same rows is not, and an insert without a token is never affected
      // by an earlier one's token.
      await a.insert(t, [{ id: 1 }, { id: 2 }], { dedupToken: 'batch-b' });
      await a.insert(t, [{ id: 4 }]);
      expect(await ids()).toEqual([1, 1, 2, 2, 4]);
    });

    it('lets ReplacingMergeTree FINAL show one row per sorting key, the highest version', async () => {
      const t = freshTable('rmt');
      await a.command(`CREATE TABLE ${t} (id String, v UInt32, note String) ENGINE = ReplacingMergeTree(v) ORDER BY id`);
      await a.insert(t, [{ id: 'k', v: 1, note: 'old' }]);
      await a.insert(t, [
        { id: 'k', v: 2, note: 'new' },
        { id: 'j', v: 1, note: 'only' },
      ]);
      expect(await a.query(`SELECT id, v, note FROM ${t} FINAL ORDER BY id`)).toEqual([
        { id: 'j', v: 1, note: 'only' },
        { id: 'k', v: 2, note: 'new' },
      ]);
      expect(await a.query(`SELECT count() AS c FROM ${t}`)).toEqual([{ c: 3 }]);
    });

    it('treats an empty insert as a no-op', async () => {
      const t = freshTable('empty');
      await a.command(`CREATE TABLE ${t} (id String) ENGINE = MergeTree ORDER BY id`);
      await a.insert(t, []);
      expect(await a.query(`SELECT count() AS c FROM ${t}`)).toEqual([{ c: 0 }]);
    });

    it('reports bad SQL, unknown tables and unparsable rows as non-retriable InfraErrors', async () => {
      await expectInfraError(a.query('SELEC 1'), false);
      await expectInfraError(a.command('CREATE TABLE broken ('), false);
      await expectInfraError(a.query(`SELECT * FROM ${freshTable('missing')}`), false);
      const t = freshTable('typed');
      await a.command(`CREATE TABLE ${t} (at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY at`);
      const e = await expectInfraError(a.insert(t, [{ at: 'not a time' }]), false);
      expect(e.message).toContain(`insert into ${t} failed`);
      // A table name that is not an identifier never reaches the server.
      await expectInfraError(a.insert('x; DROP TABLE y', [{ a: 1 }]), false);
    });
  });
}
