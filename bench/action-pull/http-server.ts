/**
 * The action-store HTTP app on Redis, run in a worker thread by run.ts --http so the server and the
 * load generator do not share one event loop. Posts its port to the parent. `/bench/noop` is the
 * HTTP baseline run.ts measures beside each --http scenario.
 */
import { parentPort, workerData } from 'node:worker_threads';
import express from 'express';
import Redis from 'ioredis';
import { KeyRing, createLogger } from '@evp/core';
import { listen } from '@evp/http';
import { RedisActionStore, systemClock } from '@evp/actions';
import { createActionStoreApp } from '@evp/action-store';

const { url, prefix, key } = workerData as { url: string; prefix: string; key: string };
const redis = new Redis(url);
const store = new RedisActionStore({ redis, clock: systemClock(), prefix });
const keys = new KeyRing({ keys: [{ id: 'bench', app_id: 'bench', role: 'api', key }] });
const { app } = createActionStoreApp({ store, keys, logger: createLogger('bench', 'silent') });
// The --http baseline: the same server, body parsing and answer shape, with no auth and no Redis.
const outer = express();
outer.post('/bench/noop', express.json(), (_req, res) => {
  res.status(200).json({ data: [], more: false });
});
outer.use(app);
void listen(outer, 0, '127.0.0.1').then(({ port }) => parentPort?.postMessage({ port }));
