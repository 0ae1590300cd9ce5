import { createInProcessRegistry } from '@evp/embedded';
import { createConfluentRegistry, createSchemaStore } from '@evp/registry';
import { describeSchemaRegistryConformance } from '../conformance/schema-registry';
import { startSchemaRegistryDouble } from './server';

// The real adapter (and so the real @kafkajs client) against the double: proves the double speaks
// the REST dialect the client expects, without the local stack.
describeSchemaRegistryConformance('Confluent adapter against the REST test double', async () => {
  const double = await startSchemaRegistryDouble();
  return { registry: createConfluentRegistry({ url: double.url }), close: () => double.close() };
});

describe('bytes are interchangeable between the in-process and the Confluent adapter', () => {
  const schema = {
    type: 'record',
    name: 'Event',
    namespace: 'evp.test',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'at', type: 'long' },
      { name: 'note', type: ['null', 'string'], default: null },
    ],
  };

  it('decodes with one what the other encoded, given the same ids', async () => {
    const store = createSchemaStore();
    const double = await startSchemaRegistryDouble({ store });
    try {
      const confluent = createConfluentRegistry({ url: double.url });
      const embedded = createInProcessRegistry({ store });
      const id = await confluent.register('events-value', schema);
      expect(await embedded.register('events-value', schema)).toBe(id);
      const value = { id: 'e1', at: -(2 ** 52) - 1, note: 'x' };
      const fromEmbedded = await embedded.encode(id, value);
      const fromConfluent = await confluent.encode(id, value);
      expect(fromEmbedded.equals(fromConfluent)).toBe(true);
      expect(await confluent.decode(fromEmbedded)).toEqual(value);
      expect(await embedded.decode(fromConfluent)).toEqual(value);
    } finally {
      await double.close();
    }
  });
});
