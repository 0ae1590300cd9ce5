import { request as httpRequest } from 'node:http';
import type { BusProducer } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { listen } from '@evp/http';
import { waitFor } from '@evp/testkit';
import { SDK, envelope, harness } from './test-fixtures';
import { shutdownGateway } from './shutdown';

/** A producer whose sends wait for `release()`: the request is in flight while shutdown starts. */
function gatedProducer(inner: BusProducer) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const sending = new Promise<void>((r) => (entered = r));
  const events: string[] = [];
  const producer: BusProducer = {
    send: async (topic, messages) => {
      entered();
      await gate;
      await inner.send(topic, messages);
      events.push('sent');
    },
    sendBatch: (e) => inner.sendBatch(e),
    close: async () => {
      events.push('producer closed');
      await inner.close();
    },
  };
  return { producer, release, sending, events };
}

const post = (port: number, body: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { port, host: '127.0.0.1', method: 'POST', path: '/v1/ingest/log', headers: { authorization: `Bearer ${SDK}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

describe('graceful shutdown', () => {
  it('stops accepting, lets the in-flight request finish with 200, then flushes the producer', async () => {
    const bus = createInProcessBus();
    const base = await bus.producer();
    const gated = gatedProducer(base);
    const s = await harness(bus, { deps: { producer: gated.producer } });
    const { server, port } = await listen(s.app, 0, '127.0.0.1');

    const inFlight = post(port, JSON.stringify(envelope('u', 2)));
    await gated.sending;
    let drained = false;
    const done = shutdownGateway({ server, producer: gated.producer, logger: s.logger, onDrain: () => void (drained = true), graceMs: 10_000 }).then(() =>
      gated.events.push('shutdown done'),
    );
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(true);
    // New connections are refused while the in-flight one is still waiting for its ack.
    await expect(post(port, '{}')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    gated.release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).accepted).toBe(2);
    await done;
    expect(gated.events).toEqual(['sent', 'producer closed', 'shutdown done']);
    await waitFor(() => s.raw.length === 1);
    await s.close();
  });
});
