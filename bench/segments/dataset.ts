/**
 * The generated data set of bench/segments: 100,000 users, 10,000,000 events over 300 days, drug and
 * grocery catalog records and a user catalog record for most users, in a persistent chdb directory
 * under `.local/`, built once with `INSERT … SELECT FROM numbers()` and reused by later runs.
 *
 * Two databases hold the same rows in two part states, so both can be timed in one run:
 * - `segbench_parts`: as inserted, in ten 1,000,000-row inserts, merges switched off by a table setting:
 *   every insert wrote parts in every monthly partition (what a bulk load leaves before merges);
 * - `segbench_merged`: the same rows copied and merged with `OPTIMIZE TABLE … FINAL` (one part per
 *   month: what FINAL finds once background merges are done).
 *
 * Events follow the data contract (schemas/src/events): page and search (block core), item, cart and
 * checkout (block e_commerce) with the properties the contract requires, items of checkouts and carts
 * referring to the drug catalog (ids d0…d499) or the grocery one (g0…g199), prices stored as JSON
 * integers or floats as a client sends them. A quarter of the users lapsed 8–67 days before NOW (no
 * event since), so `last_seen` conditions select something.
 */
import type { Analytics } from '@evp/core';

export const USERS = 100_000;
export const EVENTS = 10_000_000;
const DAYS = 300;
/** The end of the generated history and the evaluation instant of every run. */
export const NOW = new Date('2026-11-01T00:00:00.000Z');
export const APP = 'bench';
const DRUGS = 500;
const GROCERIES = 200;
const INSERTS = 10;
const ATC_GROUPS = ['A', 'B', 'C', 'D', 'G', 'H', 'J', 'L', 'M', 'N', 'P', 'R', 'S', 'V'];
const COUNTRIES = ['Kenya', 'Nigeria', 'Uganda', 'Tanzania', 'Ghana', 'Rwanda'];

export const DATABASES = { parts: 'segbench_parts', merged: 'segbench_merged' } as const;
export type PartState = keyof typeof DATABASES;

const sqlList = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
const nowSql = `toDateTime64('${NOW.toISOString().slice(0, 23).replace('T', ' ')}', 3, 'UTC')`;

/** One item object of the contract's `Item` as JSON text, the `i`-th of event `n`. */
const itemJson = (n: string, i: string) => `concat(
    '{"id":"', if(cityHash64(${n}, ${i}, 11) % 10 < 7, concat('d', toString(cityHash64(${n}, ${i}, 12) % ${DRUGS})), concat('g', toString(cityHash64(${n}, ${i}, 12) % ${GROCERIES}))),
    '","type":"', if(cityHash64(${n}, ${i}, 11) % 10 < 7, 'drug', 'grocery'),
    '","quantity":', toString(1 + cityHash64(${n}, ${i}, 13) % 3),
    ',"price":', toString(round((cityHash64(${n}, ${i}, 14) % 20000) / 100, 2)),
    ',"currency":"KES"}')`;

/**
 * The rows of event numbers [from, from + count): every column of `events` but `inserted_at` and
 * `warnings` (defaults), in table order.
 */
function eventsSelect(from: number, count: number, app = APP): string {
  return `
SELECT event_id, app_id, user_id, session_id, NULL, NULL, device_id, os, sdk_name, sdk_version, app_version, app_version_code, tz,
       block, name, NULL, NULL, time, true, time + toIntervalMillisecond(200 + n % 5000), request_id, 'current', CAST(props AS JSON), NULL, '{}'
FROM (
  SELECT n,
    lower(hex(MD5(toString(n)))) AS event_id,
    '${app}' AS app_id,
    cityHash64(n, 1) % ${USERS} AS u,
    concat('u', leftPad(toString(u), 6, '0')) AS user_id,
    if(u % 4 = 0, 8 + u % 60, 0) AS lapsed_days,
    ${nowSql} - toIntervalMillisecond(lapsed_days * 86400000 + cityHash64(n, 3) % ((${DAYS} - lapsed_days) * 86400000)) AS time,
    concat(user_id, '-', toString(toDate(time))) AS session_id,
    concat('dev-', user_id) AS device_id,
    if(u % 3 = 0, 'ios', 'android') AS os,
    'causalfoundry-android' AS sdk_name,
    '1.4.0' AS sdk_version,
    ['2.1.0', '2.2.0', '2.3.1'][1 + u % 3] AS app_version,
    toInt32(210 + (u % 3) * 10) AS app_version_code,
    '+03:00' AS tz,
    concat('r', toString(intDiv(n, 50))) AS request_id,
    cityHash64(n, 2) % 100 AS k,
    multiIf(k < 40, 'page', k < 60, 'item', k < 72, 'search', k < 87, 'cart', 'checkout') AS name,
    if(name IN ('page', 'search'), 'core', 'e_commerce') AS block,
    toString(round((cityHash64(n, 8) % 60000) / 100, 2)) AS price_text,
    multiIf(
      name = 'page', concat('{"path":"/screen/', toString(cityHash64(n, 4) % 40), '","title":"Screen ', toString(cityHash64(n, 4) % 40),
                            '","duration":', toString(round((cityHash64(n, 5) % 120000) / 1000, 1)), ',"render_time":', toString(cityHash64(n, 6) % 900), '}'),
      name = 'item', concat('{"action":"', ['view', 'detail', 'add_favorite', 'impression'][1 + cityHash64(n, 4) % 4], '","item":', ${itemJson('n', '0')}, '}'),
      name = 'search', concat('{"query":"q', toString(cityHash64(n, 4) % 5000), '","module":"e_commerce","page":', toString(1 + cityHash64(n, 5) % 3),
                              ',"results_list":[{"id":"d', toString(cityHash64(n, 6) % ${DRUGS}), '","type":"drug"},{"id":"d', toString(cityHash64(n, 7) % ${DRUGS}), '","type":"drug"}]}'),
      name = 'cart', concat('{"id":"c', toString(cityHash64(n, 4) % 1000000), '","action":"', if(cityHash64(n, 5) % 4 = 0, 'remove_item', 'add_item'),
                            '","cart_price":', price_text, ',"currency":"KES","item":', ${itemJson('n', '0')}, '}'),
      concat('{"id":"o', toString(n), '","cart_id":"c', toString(cityHash64(n, 4) % 1000000), '","cart_price":', price_text,
             ',"currency":"', if(cityHash64(n, 9) % 10 = 0, 'USD', 'KES'), '","shop_mode":"', if(cityHash64(n, 10) % 3 = 0, 'pickup', 'delivery'),
             '","items":[', arrayStringConcat(arrayMap(i -> ${itemJson('n', 'i')}, range(1 + toUInt8(cityHash64(n, 15) % 3))), ','),
             '],"is_successful":', if(cityHash64(n, 16) % 5 = 0, 'false', 'true'), '}')
    ) AS props
  FROM (SELECT number + ${from} AS n FROM numbers(${count}))
)`;
}

const EVENT_COLUMNS =
  'event_id, app_id, user_id, session_id, session_start, session_end, device_id, os, sdk_name, sdk_version, app_version, app_version_code, tz, ' +
  'block, name, sent_name, property, time, online, received_at, request_id, envelope, props, meta, client';

/**
 * The statement storing `count` events of the data set for app `app` (its users u000000…): the
 * history of an app with other users, for the latency bench. `app` is a constant of the bench.
 * `from` continues the numbering (several inserts of one data set, bench/privacy).
 */
export function historyInsert(app: string, count: number, from = 0): string {
  if (!/^[A-Za-z0-9_-]+$/.test(app)) throw new Error(`not an app id for SQL text: ${app}`);
  return `INSERT INTO events (${EVENT_COLUMNS}) ${eventsSelect(from, count, app)}`;
}

/** The latest catalog records: drugs and groceries (items refer to them) and a user record for 90% of the users. */
async function insertCatalogs(a: Analytics): Promise<void> {
  const receivedAt = `${nowSql} - toIntervalDay(400)`;
  await a.command(`INSERT INTO catalog_drug (app_id, id, received_at, request_id, record)
    SELECT '${APP}', concat('d', toString(number)), ${receivedAt}, 'seed',
      CAST(concat('{"id":"d', toString(number), '","name":"Drug ', toString(number), '","atc_anatomical_group":"',
        ${sqlList(ATC_GROUPS)}[1 + number % ${ATC_GROUPS.length}], '","otc_or_ethical":"', if(number % 2 = 0, 'otc', 'ethical'), '"}') AS JSON)
    FROM numbers(${DRUGS})`);
  await a.command(`INSERT INTO catalog_grocery (app_id, id, received_at, request_id, record)
    SELECT '${APP}', concat('g', toString(number)), ${receivedAt}, 'seed', CAST(concat('{"id":"g', toString(number), '","name":"Grocery ', toString(number), '"}') AS JSON)
    FROM numbers(${GROCERIES})`);
  await a.command(`INSERT INTO catalog_user (app_id, id, received_at, request_id, record)
    SELECT '${APP}', concat('u', leftPad(toString(number), 6, '0')), ${receivedAt}, 'seed',
      CAST(concat('{"id":"u', leftPad(toString(number), 6, '0'), '","country":"', ${sqlList(COUNTRIES)}[1 + cityHash64(number, 21) % ${COUNTRIES.length}],
        '","gender":"', if(number % 2 = 0, 'female', 'male'), '","birth_year":', toString(1950 + number % 55), ',"timezone":"Africa/Nairobi"}') AS JSON)
    FROM numbers(${USERS}) WHERE number % 10 != 9`);
}

async function count(a: Analytics, db: string): Promise<number> {
  const [row] = await a.query<{ n: string }>(`SELECT count() AS n FROM ${db}.events`);
  return Number(row?.n ?? 0);
}

/**
 * Makes both databases hold the data set (generating what is missing) and leaves the session in
 * neither. `migrate(db)` creates the schema in a database (the project's migrations).
 */
export async function ensureDataset(a: Analytics, migrate: (db: string) => Promise<void>, log: (s: string) => void, events = EVENTS): Promise<void> {
  const parts = DATABASES.parts;
  const merged = DATABASES.merged;
  for (const db of [parts, merged]) await a.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  const asInserted = (await count(a, parts).catch(() => 0)) === events && (await partsOf(a, parts)).parts > (await partsOf(a, parts)).partitions;
  if (!asInserted) {
    log(`generating ${events} events into ${parts} (once; a few minutes)`);
    await migrate(parts);
    // No merge may ever pick these parts (a table setting, so it holds in every later session too):
    // this copy keeps the as-inserted state. Only merging differs from the migrations' table.
    await a.command(`ALTER TABLE ${parts}.events MODIFY SETTING max_bytes_to_merge_at_max_space_in_pool = 1, max_bytes_to_merge_at_min_space_in_pool = 1`);
    for (const t of ['events', 'catalog_drug', 'catalog_grocery', 'catalog_user']) await a.command(`TRUNCATE TABLE ${parts}.${t}`);
    const t0 = Date.now();
    const per = events / INSERTS;
    for (let i = 0; i < INSERTS; i++) {
      await a.command(`INSERT INTO ${parts}.events (${EVENT_COLUMNS}) ${eventsSelect(i * per, per)}`);
      log(`  ${(i + 1) * per} events (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
    await a.command(`USE ${parts}`);
    await insertCatalogs(a);
    await a.command(`OPTIMIZE TABLE ${parts}.catalog_user FINAL`);
    await a.command(`OPTIMIZE TABLE ${parts}.catalog_drug FINAL`);
  }
  if ((await count(a, merged).catch(() => 0)) !== events) {
    log(`copying into ${merged} and merging (once)`);
    await migrate(merged);
    for (const t of ['events', 'catalog_drug', 'catalog_grocery', 'catalog_user']) {
      await a.command(`TRUNCATE TABLE ${merged}.${t}`);
      await a.command(`INSERT INTO ${merged}.${t} SELECT * FROM ${parts}.${t}`);
    }
    const t0 = Date.now();
    await a.command(`OPTIMIZE TABLE ${merged}.events FINAL`);
    log(`  OPTIMIZE FINAL ${Math.round((Date.now() - t0) / 1000)} s`);
  }
}

/** Active parts and rows of `events` in a database: the part state a run measured. */
export async function partsOf(a: Analytics, db: string): Promise<{ parts: number; partitions: number }> {
  const [row] = await a.query<{ parts: string; partitions: string }>(
    `SELECT count() AS parts, uniqExact(partition) AS partitions FROM system.parts WHERE database = '${db}' AND table = 'events' AND active`,
  );
  return { parts: Number(row?.parts), partitions: Number(row?.partitions) };
}
