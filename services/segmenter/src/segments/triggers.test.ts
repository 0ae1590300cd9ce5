import { topics, type CatalogKind } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { catalogSchema, catalogSubject, catalogToAvro } from '@evp/schemas';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { pageEvent, startEngine, startSinkHarness, userEvent } from '../testing';
import type { InsertedRow } from '../sink';
import type { CompiledSegment } from '@evp/segment-language';
import { readWorkItem, workForRows, type SegmentEntry, type WorkItem } from './work';

const compiled = (events: string[], catalogs: CatalogKind[] = []): CompiledSegment => ({
  sql:
    'SELECT user_id FROM events FINAL WHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))' +
    " AND (has({p0:Array(String)}, name) OR has({p0:Array(String)}, '*')) GROUP BY user_id",
  params: { p0: events },
  events,
  catalogs,
  timeDriven: false,
  segments: [],
});

/** What each segment reads, by name: events (`*`: any), catalog kinds. */
const SEGMENTS: Record<string, CompiledSegment> = {
  raters: compiled(['rate']),
  anything: compiled(['*']),
  readers: compiled(['page'], ['user']),
  pharmacy: compiled(['rate'], ['drug']),
  searchers: compiled(['search']),
};

const rating = { rate_value: 4, type: 'item', subject_id: 'i1' };

const entries = (app: string): SegmentEntry[] => Object.entries(SEGMENTS).map(([id, c]) => ({ app_id: app, id, compiled: c }));

describe('work for stored rows', () => {
  const rows: InsertedRow[] = [
    { app_id: 'A', user_id: 'u1', name: 'page' },
    { app_id: 'A', user_id: 'u2', name: 'rate' },
    { app_id: 'A', user_id: 'u1', name: 'rate' },
    { app_id: 'A', user_id: 'u1', name: 'page' },
    { app_id: 'A', user_id: 'u3', catalog: 'user' },
    { app_id: 'B', user_id: 'u9', name: 'page' },
    { app_id: 'A', catalog: 'site' },
  ];

  it("asks each segment of the row's app to evaluate the users whose event names (or user records) it reads", () => {
    const items = workForRows(rows, (app) => (app === 'A' ? entries('A') : []), 1_000, 42);
    expect(items).toEqual([
      { kind: 'users', app_id: 'A', segment_id: 'raters', users: ['u1', 'u2'] },
      { kind: 'users', app_id: 'A', segment_id: 'anything', users: ['u1', 'u2'] },
      { kind: 'users', app_id: 'A', segment_id: 'readers', users: ['u1', 'u3'] },
      { kind: 'users', app_id: 'A', segment_id: 'pharmacy', users: ['u1', 'u2'] },
    ]);
  });

  it('asks for a full evaluation when a record of another catalog kind the segment reads arrived, and cuts large user sets', () => {
    const items = workForRows([...rows, { app_id: 'A', catalog: 'drug' }], (app) => (app === 'A' ? entries('A') : []), 1, 42);
    expect(items).toEqual([
      { kind: 'users', app_id: 'A', segment_id: 'raters', users: ['u1'] },
      { kind: 'users', app_id: 'A', segment_id: 'raters', users: ['u2'] },
      { kind: 'users', app_id: 'A', segment_id: 'anything', users: ['u1'] },
      { kind: 'users', app_id: 'A', segment_id: 'anything', users: ['u2'] },
      { kind: 'users', app_id: 'A', segment_id: 'readers', users: ['u1'] },
      { kind: 'users', app_id: 'A', segment_id: 'readers', users: ['u3'] },
      { kind: 'full', app_id: 'A', segment_id: 'pharmacy', requested_at: 42 },
    ]);
  });
});

describe('the sink triggers segment work (in-process bus, chdb)', () => {
  const chdb = useMigratedChdb('segtrig');

  it('after its rows are stored, the sink hands the engine its events and records; the work topic gets one item per segment that reads them', async () => {
    const app = 'app-trig';
    const bus = createInProcessBus({ retryDelayMs: 5 });
    const registry = createInProcessRegistry();
    const hooked: { rows: InsertedRow[]; storedEvents: number }[] = [];
    const engine = await startEngine({
      analytics: chdb.analytics,
      bus,
      registry,
      now: () => 1_000,
      compile: (s) => SEGMENTS[s.name] as CompiledSegment,
    });
    const sink = await startSinkHarness({
      bus,
      registry,
      analytics: chdb.analytics,
      onInserted: async (rows) => {
        // Called once the rows are in ClickHouse, before the handler returns.
        const [stored] = await chdb.analytics.query<{ n: number }>('SELECT count() AS n FROM events WHERE app_id = {app:String}', { app });
        hooked.push({ rows, storedEvents: stored?.n ?? 0 });
        await engine.engine.onInserted(rows);
      },
    });
    try {
      const ids = new Map<string, string>();
      for (const name of Object.keys(SEGMENTS)) ids.set((await engine.engine.definitions.create(app, { name, definition: { event: name } })).id, name);
      await engine.engine.refresh();

      const sent = [
        { ...userEvent(app, 'u1', 'page', 1_000), props: pageEvent.props },
        { ...userEvent(app, 'u2', 'rate', 1_001), props: rating },
        { ...userEvent(app, 'u1', 'rate', 1_002), props: rating },
      ];
      await sink.send(topics.events('core'), await Promise.all(sent.map((e) => sink.event(e))));
      const hookedRows = () => hooked.flatMap((h) => h.rows);
      await waitFor(() => hookedRows().length === 3, { timeoutMs: 10_000, what: 'the hook for the events' });
      const catalog = async (kind: CatalogKind, id: string, record: Record<string, unknown>) => {
        const schemaId = await registry.register(catalogSubject(kind), catalogSchema(kind) as object);
        const value = await registry.encode(
          schemaId,
          catalogToAvro({ app_id: app, id, kind, received_at: 2_000, request_id: 'r1', record: { id, ...record }, extra: null }),
        );
        await sink.send(topics.catalog(kind), [{ key: `${app}:${id}`, value }]);
      };
      await catalog('user', 'u3', { timezone: '+03:00' });
      await catalog('drug', 'd1', { name: 'aspirin' });
      await waitFor(() => hookedRows().length === 5, { timeoutMs: 10_000, what: 'the hook for the catalog records' });

      // One call per handler call (events of different users sit on different partitions).
      const sorted = (list: unknown[]) => list.map((i) => JSON.stringify(i)).sort();
      expect(sorted(hookedRows())).toEqual(
        sorted([
          ...sent.map((e) => ({ app_id: app, user_id: e.user_id, name: e.name, event_id: e.event_id })),
          { app_id: app, catalog: 'user', user_id: 'u3' },
          { app_id: app, catalog: 'drug' },
        ]),
      );
      // Each call came after its events were stored.
      let events = 0;
      for (const h of hooked) {
        events += h.rows.filter((r) => r.name !== undefined).length;
        expect(h.storedEvents).toBeGreaterThanOrEqual(events);
      }

      const items: WorkItem[] = [];
      await bus.scan(topics.segmentsWork, 0, (m) => void items.push(readWorkItem(m)));
      // Per segment: the users asked for (over the hook's calls, one per partition) and the full evaluations.
      const asked: Record<string, { users: string[]; full: number }> = {};
      for (const i of items) {
        const name = ids.get(i.segment_id) as string;
        const a = (asked[name] ??= { users: [], full: 0 });
        if (i.kind === 'users') a.users = [...new Set([...a.users, ...i.users])].sort();
        else a.full += 1;
      }
      expect(asked).toEqual({
        raters: { users: ['u1', 'u2'], full: 0 },
        anything: { users: ['u1', 'u2'], full: 0 },
        readers: { users: ['u1', 'u3'], full: 0 },
        pharmacy: { users: ['u1', 'u2'], full: 1 },
      });
    } finally {
      await engine.stop();
      await sink.close();
    }
  });
});
