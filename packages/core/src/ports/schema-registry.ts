/**
 * Schema registry port (Confluent REST API, or the in-process registry). Values are framed in the
 * Confluent wire format: magic byte 0, 4-byte big-endian schema id, Avro binary body. Registration
 * enforces BACKWARD compatibility per subject (a new schema must read data written with the latest).
 */
export interface SchemaRegistry {
  /** Registers (or finds) an Avro schema under a subject and returns its global id. */
  register(subject: string, schema: object): Promise<number>;
  /** Encodes a value with the schema of the given id, in wire format. */
  encode(schemaId: number, value: unknown): Promise<Buffer>;
  /** Decodes a wire-format buffer with the schema whose id it carries. */
  decode(buffer: Buffer): Promise<unknown>;
  /**
   * The Avro schema (JSON) registered under an id: what a reader built for the writer's own schema
   * needs (the sink's events reader, avro-rowbinary.ts). An unknown id is a non-retriable error.
   */
  schemaById(schemaId: number): Promise<object>;
}
