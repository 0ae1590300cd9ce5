import { InfraError } from '@evp/core';
import { createSchemaStore } from '@evp/registry';
import { describeSchemaRegistryConformance } from '@evp/testkit';
import { createInProcessRegistry } from './in-process-registry';

describeSchemaRegistryConformance('in-process registry', async () => ({
  registry: createInProcessRegistry(),
  close: async () => {},
}));

const user = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'string' }] };
const userIdAsInt = { type: 'record', name: 'User', fields: [{ name: 'id', type: 'int' }] };

describe('createInProcessRegistry options', () => {
  it('takes a global compatibility level', async () => {
    const registry = createInProcessRegistry({ compatibility: 'NONE' });
    const v1 = await registry.register('users', user);
    expect(await registry.register('users', userIdAsInt)).toBe(v1 + 1);
  });

  it('can share a store, so two registries agree on ids', async () => {
    const store = createSchemaStore();
    const producer = createInProcessRegistry({ store });
    const consumer = createInProcessRegistry({ store });
    const id = await producer.register('users', user);
    expect(await consumer.decode(await producer.encode(id, { id: 'u1' }))).toEqual({ id: 'u1' });
  });

  it('names the offending path of a value that does not match', async () => {
    const registry = createInProcessRegistry();
    const id = await registry.register('users', user);
    await expect(registry.encode(id, { id: 7 })).rejects.toThrow(
      new InfraError('schema-registry', `encode with schema ${id} failed: value does not match the schema at $.id`, {
        retriable: false,
      }),
    );
  });

  it('reports a corrupt Avro body as non-retriable', async () => {
    const registry = createInProcessRegistry();
    const id = await registry.register('users', user);
    const bytes = await registry.encode(id, { id: 'a long enough id' });
    const err = await registry.decode(bytes.subarray(0, bytes.length - 3)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect((err as InfraError).retriable).toBe(false);
    expect((err as Error).message).toMatch(/the Avro body is corrupt: truncated buffer/);
  });
});
