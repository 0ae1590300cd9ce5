import { InfraError } from '@evp/core';
import { createSchemaRegistryDouble } from '@evp/testkit';
import express from 'express';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConfluentRegistry } from './confluent-registry';
import { WireFormatError } from './wire-format';

// Behaviour specific to the Confluent adapter (caching, error mapping); the behaviour it shares
// with every adapter is the conformance suite, run against the test double in testkit.

const user = {
  type: 'record',
  name: 'User',
  namespace: 'evp.test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'age', type: 'int' },
  ],
};
const userReordered = { fields: user.fields, namespace: 'evp.test', name: 'User', type: 'record' };

interface Running {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/** The double behind a recorder; `failNext` makes the next matching requests answer 503. */
async function startRecordedDouble(failNext: { count: number; match: RegExp } = { count: 0, match: /$^/ }): Promise<Running> {
  const requests: string[] = [];
  const app = express();
  app.use((req, res, next) => {
    const line = `${req.method} ${req.path}`;
    requests.push(line);
    if (failNext.count > 0 && failNext.match.test(line)) {
      failNext.count -= 1;
      res.status(503).type('application/vnd.schemaregistry.v1+json').send('{"error_code":50003,"message":"Error while forwarding the request to the leader"}');
      return;
    }
    next();
  });
  app.use(createSchemaRegistryDouble());
  const server = await listen(createServer(app));
  return { url: urlOf(server), requests, close: () => close(server) };
}

async function listen(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function rejection(promise: Promise<unknown>): Promise<InfraError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InfraError);
  return err as InfraError;
}

describe('createConfluentRegistry', () => {
  let running: Running | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('asks the registry once per (subject, schema), however often and concurrently it is called', async () => {
    running = await startRecordedDouble();
    const registry = createConfluentRegistry({ url: running.url });
    const ids = await Promise.all([1, 2, 3].map(() => registry.register('users-value', user)));
    ids.push(await registry.register('users-value', user), await registry.register('users-value', userReordered));
    expect(new Set(ids).size).toBe(1);
    expect(running.requests.filter((r) => r === 'POST /subjects/users-value/versions')).toHaveLength(1);

    await registry.register('other-value', user);
    expect(running.requests.filter((r) => r.startsWith('POST /subjects/'))).toHaveLength(2);
  });

  it('fetches a schema once per id for encode and decode', async () => {
    running = await startRecordedDouble();
    const producer = createConfluentRegistry({ url: running.url });
    const consumer = createConfluentRegistry({ url: running.url });
    const id = await producer.register('users-value', user);
    for (let i = 0; i < 3; i++) await consumer.decode(await consumer.encode(id, { id: `u${i}`, age: i }));
    expect(running.requests.filter((r) => r === `GET /schemas/ids/${id}`)).toHaveLength(1);
  });

  it('maps a 5xx to a retriable error and does not remember the failure', async () => {
    running = await startRecordedDouble({ count: 1, match: /^POST \/subjects\/users-value\/versions$/ });
    const registry = createConfluentRegistry({ url: running.url });
    const err = await rejection(registry.register('users-value', user));
    expect(err.retriable).toBe(true);
    expect(err.message).toMatch(/registry answered 503: Error while forwarding the request to the leader/);
    expect(await registry.register('users-value', user)).toBeGreaterThan(0);
  });

  it('maps an incompatible schema to a non-retriable error carrying the registry message', async () => {
    running = await startRecordedDouble();
    const registry = createConfluentRegistry({ url: running.url });
    await registry.register('users-value', user);
    const changed = { ...user, fields: [user.fields[0], { name: 'age', type: 'string' }] };
    const err = await rejection(registry.register('users-value', changed));
    expect(err.retriable).toBe(false);
    expect(err.message).toMatch(
      /^schema-registry: register schema under subject "users-value" failed: registry answered 409: Schema being registered is incompatible with an earlier schema for subject "users-value"/,
    );
  });

  it('refuses to register into a subject whose level differs from the one it was given', async () => {
    running = await startRecordedDouble();
    await fetch(`${running.url}/config/users-value`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'FULL' }),
    });
    const err = await rejection(createConfluentRegistry({ url: running.url }).register('users-value', user));
    expect(err.retriable).toBe(false);
    expect(err.message).toMatch(/Compatibility does not match the configuration \(BACKWARD != FULL\)/);
    expect(await createConfluentRegistry({ url: running.url, compatibility: 'FULL' }).register('users-value', user)).toBe(1);
  });

  it('maps an unreachable registry to a retriable error', async () => {
    const server = await listen(createServer());
    const url = urlOf(server);
    await close(server);
    const err = await rejection(createConfluentRegistry({ url }).register('users-value', user));
    expect(err.retriable).toBe(true);
    expect(err.message).toMatch(/registry unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
  });

  it('rejects malformed bytes before asking the registry', async () => {
    running = await startRecordedDouble();
    const registry = createConfluentRegistry({ url: running.url });
    await expect(registry.decode(Buffer.from([0, 0]))).rejects.toBeInstanceOf(WireFormatError);
    await expect(registry.decode(Buffer.from('{"json":true}'))).rejects.toThrow(/bad magic byte 0x7b/);
    expect(running.requests).toEqual([]);
  });

  it('maps an unknown id to a non-retriable error naming the registry answer', async () => {
    running = await startRecordedDouble();
    const err = await rejection(createConfluentRegistry({ url: running.url }).encode(4242, { id: 'x', age: 1 }));
    expect(err.retriable).toBe(false);
    expect(err.message).toBe('schema-registry: encode with schema 4242 failed: registry answered 404: Schema 4242 not found');
  });
});

describe('createConfluentRegistry without a registry', () => {
  it('rejects (does not throw) a schema that is not JSON', async () => {
    const cyclic: Record<string, unknown> = { type: 'record' };
    cyclic.self = cyclic;
    const registry = createConfluentRegistry({ url: 'http://127.0.0.1:1' });
    const err = await rejection(registry.register('s', cyclic));
    expect(err.retriable).toBe(false);
  });
});
