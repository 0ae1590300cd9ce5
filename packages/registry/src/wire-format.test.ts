import { InfraError } from '@evp/core';
import { WireFormatError, decodeWireFormat, encodeWireFormat } from './wire-format';

describe('wire format', () => {
  it('frames a body as magic 0, big-endian id, body', () => {
    const framed = encodeWireFormat(258, Buffer.from([0xaa, 0xbb]));
    expect([...framed]).toEqual([0, 0, 0, 1, 2, 0xaa, 0xbb]);
    expect(decodeWireFormat(framed)).toEqual({ schemaId: 258, body: Buffer.from([0xaa, 0xbb]) });
  });

  it('accepts an empty body (a record without fields encodes to nothing)', () => {
    expect(decodeWireFormat(encodeWireFormat(7, Buffer.alloc(0)))).toEqual({ schemaId: 7, body: Buffer.alloc(0) });
  });

  it('handles the largest id', () => {
    expect(decodeWireFormat(encodeWireFormat(2 ** 31 - 1, Buffer.alloc(0))).schemaId).toBe(2 ** 31 - 1);
  });

  it.each([
    ['an empty buffer', Buffer.alloc(0), /shorter than the 5-byte/],
    ['a truncated header', Buffer.from([0, 0, 0, 1]), /4 bytes is shorter/],
    ['a bad magic byte', Buffer.from([0x7b, 0, 0, 0, 1, 2]), /bad magic byte 0x7b/],
  ])('rejects %s with a non-retriable InfraError', (_label, buffer, message) => {
    let caught: unknown;
    try {
      decodeWireFormat(buffer);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WireFormatError);
    expect(caught).toBeInstanceOf(InfraError);
    expect((caught as InfraError).retriable).toBe(false);
    expect((caught as Error).message).toMatch(message);
  });

  it.each([-1, 1.5, 2 ** 31])('refuses to frame id %d', (id) => {
    expect(() => encodeWireFormat(id, Buffer.alloc(0))).toThrow(WireFormatError);
  });
});
