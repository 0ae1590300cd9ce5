import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConfluentRegistry } from './confluent-registry';
import { rejection, user } from './testing/fixtures';
import { WireFormatError } from './wire-format';

// What the adapter does without a registry answering. Its behaviour against a real registry
// (caching, error mapping, compatibility) is in confluent-registry.integration.test.ts.

/** A URL nothing listens on: a port the OS gave out and took back. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('createConfluentRegistry without a registry', () => {
  it('maps an unreachable registry to a retriable error', async () => {
    const err = await rejection(createConfluentRegistry({ url: await deadUrl() }).register('users-value', user));
    expect(err.retriable).toBe(true);
    expect(err.message).toMatch(/registry unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
  });

  it('rejects malformed bytes before asking the registry (asking would fail as unreachable)', async () => {
    const registry = createConfluentRegistry({ url: await deadUrl() });
    await expect(registry.decode(Buffer.from([0, 0]))).rejects.toBeInstanceOf(WireFormatError);
    await expect(registry.decode(Buffer.from('{"json":true}'))).rejects.toThrow(/bad magic byte 0x7b/);
  });

  it('rejects (does not throw) a schema that is not JSON', async () => {
    const cyclic: Record<string, unknown> = { type: 'record' };
    cyclic.self = cyclic;
    const registry = createConfluentRegistry({ url: 'http://127.0.0.1:1' });
    const err = await rejection(registry.register('s', cyclic));
    expect(err.retriable).toBe(false);
  });
});
