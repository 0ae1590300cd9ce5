/**
 * The action-store HTTP app on Redis, run in a worker thread by run.ts --http so the server and the
 * load generator do not share one event loop. Posts its port to the parent.
 */
import { parentPort, workerData } from 'node:worker_threads';
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
void listen(app, 0, '127.0.0.1').then(({ port }) => parentPort?.postMessage({ port }));
