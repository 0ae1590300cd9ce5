import type { SchemaRegistry } from '@evp/core';
import { COMPATIBILITY, SchemaRegistry as ConfluentClient, SchemaType } from '@kafkajs/confluent-schema-registry';
import { canonicalSchema } from './avro-schema';
import { type CompatibilityLevel, DEFAULT_COMPATIBILITY } from './compatibility';
import { toInfraError } from './confluent-errors';
import { AVRO_PARSE_OPTIONS } from './exact-long';
import { decodeWireFormat } from './wire-format';

export interface ConfluentRegistryOptions {
  /**
   * Base URL of the Confluent Schema Registry REST API: http://localhost:8081 for Confluent's
   * registry, http://localhost:8080/apis/ccompat/v7 for Apicurio Registry's compatible API.
   */
  url: string;
  /**
   * The level a subject must have. The client sets it on a subject's first registration and
   * refuses to register into a subject configured otherwise (non-retriable error).
   */
  compatibility?: CompatibilityLevel;
  auth?: { username: string; password: string };
  /** Shows up in the registry's access log as the User-Agent comment. */
  clientId?: string;
}

const DEFAULT_CLIENT_ID = 'Confluent_Schema_Registry';

/**
 * The SchemaRegistry port over the Confluent REST API. Retry options are deliberately not exposed:
 * the client library merges them into a module-level default, so one instance's setting would
 * silently leak into every other instance in the process.
 */
export function createConfluentRegistry(opts: ConfluentRegistryOptions): SchemaRegistry {
  const clientId = opts.clientId ?? DEFAULT_CLIENT_ID;
  const client = new ConfluentClient({ host: opts.url, clientId, ...(opts.auth ? { auth: opts.auth } : {}) }, { [SchemaType.AVRO]: AVRO_PARSE_OPTIONS });
  const compatibility = COMPATIBILITY[opts.compatibility ?? DEFAULT_COMPATIBILITY];
  // The client itself calls the registry on every register(); producers register on their hot
  // path, so ids are remembered here per (subject, canonical schema), in-flight calls included.
  const ids = new Map<string, Promise<number>>();

  return {
    register(subject, schema) {
      let text: string;
      try {
        text = canonicalSchema(schema);
      } catch (err) {
        return Promise.reject(toInfraError(err, `register schema under subject "${subject}"`, clientId));
      }
      const key = `${subject}\u0000${text}`;
      const known = ids.get(key);
      if (known) return known;
      // The canonical text, not the caller's spelling: Confluent's registry parses a schema to tell
      // whether it is already registered, Apicurio's compares the text, so another key order or
      // whitespace would get a new version and a new id there (another process, another id).
      const pending = client.register({ type: SchemaType.AVRO, schema: text }, { subject, compatibility }).then(
        (registered) => registered.id,
        (err: unknown) => {
          // A failure is not an answer worth keeping: the next call asks the registry again.
          ids.delete(key);
          throw toInfraError(err, `register schema under subject "${subject}"`, clientId);
        },
      );
      ids.set(key, pending);
      return pending;
    },

    async encode(schemaId, value) {
      try {
        return await client.encode(schemaId, value);
      } catch (err) {
        throw toInfraError(err, `encode with schema ${schemaId}`, clientId);
      }
    },

    async schemaById(schemaId) {
      try {
        // The client's parsed schema (cached per id), written back as JSON.
        const type = (await client.getSchema(schemaId)) as unknown as { schema(): unknown };
        return type.schema() as object;
      } catch (err) {
        throw toInfraError(err, `schema ${schemaId}`, clientId);
      }
    },

    async decode(buffer) {
      // The client reads the header unchecked (a short buffer gives a RangeError), so frame first.
      const { schemaId } = decodeWireFormat(buffer);
      try {
        return (await client.decode(buffer)) as unknown;
      } catch (err) {
        throw toInfraError(err, `decode with schema ${schemaId}`, clientId);
      }
    },
  };
}
