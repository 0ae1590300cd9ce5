import request from 'supertest';
import { InfraError, KeyRing, createLogger } from '@evp/core';
import { createHttpApp } from '../app';
import { requireKey } from '../auth';
import { createAccessLog } from './log';
import { createInMemoryAccessLogStorage } from './in-memory';
import { readRecorder } from './record';

const KEY = 'api_rec_0123456789abcdef0123';
const keys = new KeyRing({ keys: [{ id: 'rec-api', app_id: 'app-rec', role: 'api', key: KEY }] });

function appWith(storage: ReturnType<typeof createInMemoryAccessLogStorage>) {
  const logger = createLogger('record', 'silent');
  const record = readRecorder(createAccessLog(storage), logger, 3);
  return createHttpApp({
    logger,
    metricsPrefix: 'record_test',
    routes: (router) => {
      router.get('/v1/thing/:user_id', requireKey(keys, 'api'), async (req, res) => {
        await record(req, { route: 'GET /v1/thing/{user_id}', person: String(req.params.user_id), rows: 1 });
        res.status(200).json({ data: ['secret'] });
      });
    },
  }).app;
}

describe('readRecorder: no log, no read', () => {
  it('records the read with the key’s grant, then answers', async () => {
    const storage = createInMemoryAccessLogStorage();
    const res = await request(appWith(storage)).get('/v1/thing/p-1').set('Authorization', `Bearer ${KEY}`);
    expect([res.status, res.body]).toEqual([200, { data: ['secret'] }]);
    expect(storage.entries.get('app-rec')?.map((e) => [e.seq, e.key_id, e.role, e.route, e.person, e.rows])).toEqual([
      [1, 'rec-api', 'api', 'GET /v1/thing/{user_id}', 'p-1', 1],
    ]);
  });

  it('refuses the read with 503 access_log_unavailable and Retry-After when the log cannot be written', async () => {
    const storage = createInMemoryAccessLogStorage();
    storage.tryAppend = async () => {
      throw new InfraError('redis', 'connection lost', { retriable: true });
    };
    const res = await request(appWith(storage)).get('/v1/thing/p-1').set('Authorization', `Bearer ${KEY}`);
    expect([res.status, res.body.error.code, res.headers['retry-after']]).toEqual([503, 'access_log_unavailable', '3']);
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });
});
