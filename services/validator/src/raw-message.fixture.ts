import type { BusMessage } from '@evp/core';

/** An ingest.raw message as the gateway writes it (tests): `body` as JSON, the gateway's headers plus `headers`. */
export const rawMessage = (headers: Record<string, string>, body: unknown): BusMessage => ({
  topic: 'ingest.raw',
  partition: 0,
  offset: '7',
  key: 'app-1:x',
  value: Buffer.from(JSON.stringify(body)),
  headers: { app_id: 'app-1', request_id: 'req-1', received_at: '1700000100000', key_id: 'k', ...headers },
  timestamp: 1,
});
