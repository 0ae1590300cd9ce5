import { InfraError } from '@evp/core';
import { REGISTRY_DEPENDENCY } from './registry-error';

/** Confluent framing: one magic byte (0), a 4-byte big-endian schema id, then the Avro body. */
export const MAGIC_BYTE = 0;
export const HEADER_LENGTH = 5;
const MAX_SCHEMA_ID = 2 ** 31 - 1;

/** Malformed bytes never become well-formed by retrying, hence never retriable. */
export class WireFormatError extends InfraError {
  constructor(message: string) {
    super(REGISTRY_DEPENDENCY, message, { retriable: false });
    this.name = 'WireFormatError';
  }
}

export function encodeWireFormat(schemaId: number, avroBody: Buffer): Buffer {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > MAX_SCHEMA_ID) {
    throw new WireFormatError(`schema id ${schemaId} does not fit the wire format (0..${MAX_SCHEMA_ID})`);
  }
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt8(MAGIC_BYTE, 0);
  header.writeInt32BE(schemaId, 1);
  return Buffer.concat([header, avroBody]);
}

export function decodeWireFormat(buffer: Buffer): { schemaId: number; body: Buffer } {
  if (!Buffer.isBuffer(buffer)) throw new WireFormatError('expected a Buffer');
  if (buffer.length < HEADER_LENGTH) {
    throw new WireFormatError(`buffer of ${buffer.length} bytes is shorter than the ${HEADER_LENGTH}-byte wire-format header`);
  }
  const magic = buffer.readUInt8(0);
  if (magic !== MAGIC_BYTE) {
    throw new WireFormatError(`bad magic byte 0x${magic.toString(16).padStart(2, '0')} (expected 0x00): not Confluent wire format`);
  }
  return { schemaId: buffer.readInt32BE(1), body: buffer.subarray(HEADER_LENGTH) };
}
