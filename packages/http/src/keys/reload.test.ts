import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { KeyRing, createInMemoryKeyUsageStore, KeyUsageTracker, type KeysFile } from '@evp/core';
import { createHttpApp } from '../app';
import { requireKey } from '../auth';
import { listen, closeServer } from '../server';
import { watchKeysFile, type KeysReloader } from './reload';

const SDK = 'sdk_reload_test_key_0001';
const SDK2 = 'sdk_reload_test_key_0002';
const file = (keys: KeysFile['keys']): KeysFile => ({ keys });
const dir = mkdtempSync(join(tmpdir(), 'keys-reload-'));

/** Written as deployments do it: a temporary file renamed over the old one (a new inode). */
function swap(path: string, text: string) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const logged: Record<string, unknown>[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });

async function metric(r: KeysReloader, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const m = (await r.metrics.getSingleMetric(name)?.get())?.values ?? [];
  return m.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('keys file reload', () => {
  const reloaders: KeysReloader[] = [];
  afterAll(() => reloaders.forEach((r) => r.close()));

  it('applies an added key, a revocation and a removal on every replica within the interval, and keeps the last good set on a malformed file', async () => {
    const path = join(dir, 'keys.json');
    swap(path, JSON.stringify(file([{ id: 'a-sdk', app_id: 'app-a', role: 'sdk', key: SDK }])));
    // Two replicas (two rings, two reloaders) reading the one file, as pods mounting one secret.
    const replicas = [KeyRing.fromFile(path), KeyRing.fromFile(path)];
    const watchers = replicas.map((ring) => watchKeysFile({ path, ring, logger, intervalMs: 50 }));
    reloaders.push(...watchers);
    const grants = (key: string) => replicas.map((r) => r.match(key));
    const until = async (cond: () => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!cond()) {
        if (Date.now() > deadline) throw new Error('not applied within 5 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    expect(grants(SDK2)).toEqual([undefined, undefined]);

    // Rotation, step 1: the new key is added beside the old one.
    swap(
      path,
      JSON.stringify(
        file([
          { id: 'a-sdk', app_id: 'app-a', role: 'sdk', key: SDK },
          { id: 'a-sdk-2', app_id: 'app-a', role: 'sdk', key: SDK2, created_at: '2026-11-27T07:00:00Z' },
        ]),
      ),
    );
    await until(() => grants(SDK2).every((g) => g !== undefined));
    expect(grants(SDK2)).toEqual([0, 1].map(() => ({ grant: { keyId: 'a-sdk-2', appId: 'app-a', role: 'sdk' }, revoked: false })));
    expect(await metric(watchers[0]!, 'keys_reloads_total', { outcome: 'applied' })).toBe(1);
    expect(await metric(watchers[0]!, 'keys_loaded')).toBe(2);

    // Step 2: the old key is revoked (kept in the file, so the console shows it as revoked).
    swap(
      path,
      JSON.stringify(
        file([
          { id: 'a-sdk', app_id: 'app-a', role: 'sdk', key: SDK, revoked_at: '2026-01-01T00:00:00Z' },
          { id: 'a-sdk-2', app_id: 'app-a', role: 'sdk', key: SDK2, created_at: '2026-11-27T07:00:00Z' },
        ]),
      ),
    );
    await until(() => grants(SDK).every((g) => g?.revoked === true));
    expect(replicas.map((r) => r.lookup(SDK))).toEqual([undefined, undefined]);
    expect(replicas[1]!.keysOf('app-a')).toEqual([
      { id: 'a-sdk', role: 'sdk', createdAt: undefined, revokedAt: '2026-01-01T00:00:00Z' },
      { id: 'a-sdk-2', role: 'sdk', createdAt: '2026-11-27T07:00:00Z', revokedAt: undefined },
    ]);

    // A malformed file (a typo, a half-written save): refused, the keys in use stay, said once.
    logged.length = 0;
    swap(path, '{"keys": [{"id": "a-sdk-2", "app_id": "app-a", "role": "sdk", "key": "short"}]}');
    await until(() => logged.filter((l) => l.msg === 'keys file rejected: the last good keys stay in use until it is fixed').length === 2);
    expect(await Promise.all(watchers.map((w) => w.check()))).toEqual(['unchanged', 'unchanged']);
    expect(logged.map((l) => [l.level, l.problem])).toEqual(
      [0, 1].map(() => [50, `keys file ${path} is invalid: keys.0.key: String must contain at least 16 character(s)`]),
    );
    expect(await metric(watchers[1]!, 'keys_reloads_total', { outcome: 'rejected' })).toBe(1);
    expect(await metric(watchers[1]!, 'keys_file_valid')).toBe(0);
    expect(grants(SDK2).map((g) => g?.grant.keyId)).toEqual(['a-sdk-2', 'a-sdk-2']);
    expect(grants(SDK).map((g) => g?.revoked)).toEqual([true, true]);

    // Not JSON at all, then a file with a key listed twice: both refused the same way.
    swap(path, '{"keys": [');
    expect(await watchers[0]!.check()).toBe('rejected');
    swap(
      path,
      JSON.stringify(
        file([
          { id: 'x', app_id: 'app-a', role: 'sdk', key: SDK2 },
          { id: 'y', app_id: 'app-a', role: 'api', key: SDK2 },
        ]),
      ),
    );
    expect(await watchers[0]!.check()).toBe('rejected');
    expect(await metric(watchers[0]!, 'keys_reloads_total', { outcome: 'rejected' })).toBe(3);
    expect(grants(SDK2)[0]?.grant.keyId).toBe('a-sdk-2');

    // Fixed: the removal of the old key applies, and the file is valid again.
    swap(path, JSON.stringify(file([{ id: 'a-sdk-2', app_id: 'app-a', role: 'sdk', key: SDK2 }])));
    await until(() => grants(SDK).every((g) => g === undefined));
    expect(await metric(watchers[0]!, 'keys_file_valid')).toBe(1);
    expect(await metric(watchers[0]!, 'keys_reloads_total', { outcome: 'applied' })).toBe(3);
  });

  it('answers key_revoked to a revoked key, and a revocation set in the future applies when its time comes', async () => {
    let now = Date.parse('2026-11-27T07:00:00Z');
    const ring = new KeyRing(file([{ id: 'a-sdk', app_id: 'app-a', role: 'sdk', key: SDK, revoked_at: '2026-11-27T07:00:10Z' }]), { now: () => now });
    const { app } = createHttpApp({
      logger: pino({ level: 'silent' }),
      metricsPrefix: 't',
      routes: (r) => void r.get('/x', requireKey(ring, 'sdk'), (_q, s) => void s.json({ ok: true })),
    });
    const server = await listen(app, 0);
    const get = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/x`, { headers: { Authorization: `Bearer ${SDK}` } });
      return [res.status, (await res.json()) as Record<string, any>] as const;
    };
    try {
      expect(await get()).toEqual([200, { ok: true }]);
      now += 10_000;
      const [status, body] = await get();
      expect([status, body.error.code, body.error.path]).toEqual([401, 'key_revoked', 'headers.authorization']);
    } finally {
      await closeServer(server.server);
    }
  });
});

describe('key usage tracker', () => {
  it('records one entry per key per flush, the latest instant, and reads its own unflushed uses at once', async () => {
    const store = createInMemoryKeyUsageStore();
    const writes: number[] = [];
    const counted = { ...store, record: async (u: Parameters<typeof store.record>[0]) => void (writes.push(u.length), await store.record(u)) };
    let now = 1_767_225_600_000;
    const tracker = new KeyUsageTracker({ store: counted, flushMs: 60_000, now: () => now });
    for (let i = 0; i < 1000; i++) {
      tracker.used('app-a', i % 2 ? 'k1' : 'k2');
      now += 1;
    }
    tracker.used('app-b', 'k1');
    expect([...(await tracker.lastUsed('app-a'))].sort()).toEqual([
      ['k1', 1_767_225_600_999],
      ['k2', 1_767_225_600_998],
    ]);
    expect(writes).toEqual([]);
    await tracker.flush();
    expect(writes).toEqual([3]);
    expect([...(await store.lastUsed('app-b'))]).toEqual([['k1', 1_767_225_601_000]]);
    await tracker.close();
    expect(writes).toEqual([3]);
  });

  it('keeps the uses of a failed flush for the next one, and says so', async () => {
    const store = createInMemoryKeyUsageStore();
    let down = true;
    const errors: unknown[] = [];
    const flaky = { ...store, record: async (u: Parameters<typeof store.record>[0]) => (down ? Promise.reject(new Error('redis down')) : store.record(u)) };
    const tracker = new KeyUsageTracker({ store: flaky, flushMs: 60_000, now: () => 42, onFlushError: (e) => errors.push(e) });
    tracker.used('app-a', 'k1');
    await tracker.flush();
    expect(errors.map((e) => (e as Error).message)).toEqual(['redis down']);
    down = false;
    await tracker.close();
    expect([...(await store.lastUsed('app-a'))]).toEqual([['k1', 42]]);
  });
});
