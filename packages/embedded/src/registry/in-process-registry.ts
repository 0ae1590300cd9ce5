import type { SchemaRegistry } from '@evp/core';
import {
  type CompatibilityLevel,
  type SchemaStore,
  SchemaStoreError,
  createSchemaStore,
  decodeWireFormat,
  encodeWireFormat,
  registryError,
} from '@evp/registry';

export interface InProcessRegistryOptions {
  /** Global compatibility level; BACKWARD by default, as in Confluent. */
  compatibility?: CompatibilityLevel;
  /** Share one store between several registries (or inspect it from a test). */
  store?: SchemaStore;
}

/**
 * The SchemaRegistry port without a server, for embedded mode. Ids, versions and compatibility
 * come from SchemaStore (Confluent's rules), and framing is Confluent's wire format,
 * so bytes written here decode with the Confluent adapter given the same ids, and vice versa.
 * Every failure is a caller or data error (nothing here can be down), hence never retriable.
 */
export function createInProcessRegistry(opts: InProcessRegistryOptions = {}): SchemaRegistry {
  const store = opts.store ?? createSchemaStore(opts.compatibility !== undefined ? { compatibility: opts.compatibility } : {});

  const schemaType = (schemaId: number, action: string) => {
    try {
      return store.schemaById(schemaId).type;
    } catch (err) {
      throw permanent(`${action} failed`, err);
    }
  };

  let scratch = Buffer.allocUnsafe(64 * 1024);
  // The wire-format header of each schema id, built (and checked) by encodeWireFormat once.
  const headers = new Map<number, Buffer>();
  const headerOf = (schemaId: number): Buffer => {
    let header = headers.get(schemaId);
    if (header === undefined) {
      header = encodeWireFormat(schemaId, Buffer.alloc(0));
      headers.set(schemaId, header);
    }
    return header;
  };

  return {
    async register(subject, schema) {
      try {
        return store.register(subject, schema).id;
      } catch (err) {
        throw permanent(`register schema under subject "${subject}" failed`, err);
      }
    },

    async encode(schemaId, value) {
      const action = `encode with schema ${schemaId}`;
      const type = schemaType(schemaId, action);
      let end: number;
      try {
        // One walk of the value: avsc's writers reject every value isValid rejects (wrong types,
        // missing required fields, unsafe longs), so isValid runs only to explain a failure, as
        // the Confluent client does. The body is written after room for the header in a reused
        // scratch buffer (grown when too small), so a message costs one allocation, not three.
        end = type.encode(value, scratch, HEADER_ROOM);
        if (end < 0) {
          scratch = Buffer.allocUnsafe(Math.max(2 * scratch.length, scratch.length - end));
          end = type.encode(value, scratch, HEADER_ROOM);
        }
      } catch (err) {
        const invalidPaths: string[] = [];
        if (!type.isValid(value, { errorHook: (path) => invalidPaths.push(`$.${path.join('.')}`) })) {
          throw registryError(`${action} failed: value does not match the schema at ${invalidPaths.join(', ')}`, {
            retriable: false,
          });
        }
        throw permanent(`${action} failed`, err);
      }
      const header = headerOf(schemaId);
      const framed = Buffer.allocUnsafe(end);
      header.copy(framed, 0);
      scratch.copy(framed, HEADER_ROOM, HEADER_ROOM, end);
      return framed;
    },

    async schemaById(schemaId) {
      try {
        return JSON.parse(store.schemaById(schemaId).schema) as object;
      } catch (err) {
        throw permanent(`schema ${schemaId} failed`, err);
      }
    },

    async decode(buffer) {
      const { schemaId, body } = decodeWireFormat(buffer);
      const action = `decode with schema ${schemaId}`;
      const type = schemaType(schemaId, action);
      try {
        return type.fromBuffer(body) as unknown;
      } catch (err) {
        throw permanent(`${action} failed: the Avro body is corrupt`, err);
      }
    },
  };
}

/** Confluent's header: a magic byte and a 4-byte schema id. */
const HEADER_ROOM = 5;

function permanent(context: string, err: unknown) {
  const detail = err instanceof SchemaStoreError || err instanceof Error ? err.message : String(err);
  return registryError(`${context}: ${detail}`, { retriable: false, cause: err });
}
