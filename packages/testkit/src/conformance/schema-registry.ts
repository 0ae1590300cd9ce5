import { InfraError, type SchemaRegistry } from '@evp/core';
import { Type } from 'avsc';
import {
  fullOrder,
  orderSchema,
  sparseOrder,
  userAgeAsString,
  userV1,
  userV1Reordered,
  userV2WithDefault,
  userV2WithoutDefault,
} from './schema-registry-fixtures';

export interface SchemaRegistryUnderTest {
  registry: SchemaRegistry;
  close(): Promise<void>;
}

/**
 * The behaviour every SchemaRegistry adapter must share, as jest tests. Subjects get a random
 * per-run suffix, so the suite can run again and again against one long-lived registry.
 */
export function describeSchemaRegistryConformance(name: string, makeRegistry: () => Promise<SchemaRegistryUnderTest>): void {
  describe(`SchemaRegistry conformance: ${name}`, () => {
    const runId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const subject = (label: string) => `conformance-${slug(name)}-${runId}-${label}`;
    let underTest: SchemaRegistryUnderTest | undefined;
    const registry = (): SchemaRegistry => {
      if (!underTest) throw new Error('makeRegistry() did not complete');
      return underTest.registry;
    };

    beforeAll(async () => {
      underTest = await makeRegistry();
    });

    afterAll(async () => {
      await underTest?.close();
    });

    it('register returns a positive integer id', async () => {
      const id = await registry().register(subject('first'), userV1);
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThan(0);
    });

    it('registering the same schema twice returns the same id', async () => {
      const first = await registry().register(subject('twice'), userV1);
      const second = await registry().register(subject('twice'), userV1);
      expect(second).toBe(first);
    });

    it('the same schema spelled with keys in another order is the same schema', async () => {
      const first = await registry().register(subject('reordered'), userV1);
      expect(await registry().register(subject('reordered'), userV1Reordered)).toBe(first);
    });

    it('concurrent registrations of one schema agree on the id', async () => {
      const ids = await Promise.all([1, 2, 3, 4].map(() => registry().register(subject('concurrent'), orderSchema)));
      expect(new Set(ids).size).toBe(1);
    });

    it('two subjects with the same schema both work and share the global id', async () => {
      const a = await registry().register(subject('shared-a'), orderSchema);
      const b = await registry().register(subject('shared-b'), orderSchema);
      expect(b).toBe(a);
      expect(await registry().decode(await registry().encode(a, fullOrder))).toEqual(fullOrder);
      expect(await registry().decode(await registry().encode(b, sparseOrder))).toEqual(sparseOrder);
    });

    it('round-trips every Avro shape with exact values', async () => {
      const id = await registry().register(subject('roundtrip'), orderSchema);
      expect(await registry().decode(await registry().encode(id, fullOrder))).toEqual(fullOrder);
    });

    it('round-trips nulls, negative extremes and empty collections', async () => {
      const id = await registry().register(subject('roundtrip-sparse'), orderSchema);
      expect(await registry().decode(await registry().encode(id, sparseOrder))).toEqual(sparseOrder);
    });

    it('frames values in the Confluent wire format: magic 0, 4-byte big-endian id, Avro body', async () => {
      const id = await registry().register(subject('wire'), orderSchema);
      const bytes = await registry().encode(id, fullOrder);
      expect(bytes[0]).toBe(0);
      expect(bytes.readInt32BE(1)).toBe(id);
      expect(bytes.subarray(5).equals(Type.forSchema(orderSchema as never).toBuffer(fullOrder))).toBe(true);
    });

    it('rejects a change of field type (int to string) with a non-retriable error', async () => {
      await registry().register(subject('int-to-string'), userV1);
      await expectPermanentFailure(registry().register(subject('int-to-string'), userAgeAsString), /incompatible/i);
    });

    it('rejects an added field without a default with a non-retriable error', async () => {
      await registry().register(subject('no-default'), userV1);
      await expectPermanentFailure(registry().register(subject('no-default'), userV2WithoutDefault), /incompatible/i);
    });

    it('accepts an added field with a default; data keeps decoding with its writer schema', async () => {
      const v1 = await registry().register(subject('evolve'), userV1);
      const oldBytes = await registry().encode(v1, { id: 'u1', age: 41 });
      const v2 = await registry().register(subject('evolve'), userV2WithDefault);
      expect(v2).not.toBe(v1);
      const newBytes = await registry().encode(v2, { id: 'u2', age: 7, country: 'FR' });

      expect(await registry().decode(oldBytes)).toEqual({ id: 'u1', age: 41 });
      expect(await registry().decode(newBytes)).toEqual({ id: 'u2', age: 7, country: 'FR' });
      expect(await registry().register(subject('evolve'), userV1)).toBe(v1);
    });

    it('fails to decode bytes that carry an unknown schema id, without retry', async () => {
      const unknownId = 2_147_483_000 + Math.floor(Math.random() * 600);
      const bytes = Buffer.concat([Buffer.from([0]), int32(unknownId), Buffer.from([2, 0x61])]);
      await expectPermanentFailure(registry().decode(bytes));
    });

    it('gives back the schema registered under an id (every Avro shape), and fails for an unknown id without retry', async () => {
      for (const [n, schema] of [userV1, orderSchema].entries()) {
        const id = await registry().register(subject(`by-id-${n}`), schema);
        const back = await registry().schemaById(id);
        // The same Avro type: same Parsing Canonical Form.
        expect(
          Type.forSchema(back as Parameters<typeof Type.forSchema>[0])
            .fingerprint('sha256')
            .toString('hex'),
        ).toBe(
          Type.forSchema(schema as Parameters<typeof Type.forSchema>[0])
            .fingerprint('sha256')
            .toString('hex'),
        );
      }
      await expectPermanentFailure(registry().schemaById(2_147_483_000 + Math.floor(Math.random() * 600)));
    });

    it('fails to encode with an unknown schema id, without retry', async () => {
      await expectPermanentFailure(registry().encode(2_147_483_000 + Math.floor(Math.random() * 600), { id: 'x' }));
    });

    it('rejects a value that does not match the schema, without retry', async () => {
      const id = await registry().register(subject('bad-value'), userV1);
      await expectPermanentFailure(registry().encode(id, { id: 'u1', age: 'forty' }));
    });

    it('rejects bytes without the magic byte, without retry', async () => {
      const id = await registry().register(subject('bad-magic'), userV1);
      const bytes = await registry().encode(id, { id: 'u1', age: 1 });
      bytes[0] = 1;
      await expectPermanentFailure(registry().decode(bytes), /magic/i);
    });

    it('rejects a buffer shorter than the header, without retry', async () => {
      await expectPermanentFailure(registry().decode(Buffer.from([0, 0, 1])));
    });
  });
}

async function expectPermanentFailure(promise: Promise<unknown>, message?: RegExp): Promise<void> {
  const outcome = await promise.then(
    (value) => ({ rejected: false as const, value }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  if (!outcome.rejected) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(InfraError);
  expect((outcome.error as InfraError).retriable).toBe(false);
  if (message) expect((outcome.error as Error).message).toMatch(message);
}

function int32(value: number): Buffer {
  const buf = Buffer.alloc(4);
  buf.writeInt32BE(value);
  return buf;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
