import { AvroOut } from './avro-out';

describe('AvroOut.handOver', () => {
  it('hands over the buffer with its bytes and goes on in one sized for what was used, never below the initial size', () => {
    const o = new AvroOut(8);
    o.zeros(100);
    const big = o.handOver(100);
    expect([big.length, big.subarray(0, 100).every((b) => b === 0)]).toEqual([128, true]);
    // The next buffer fits the batch just handed over (a power of two times the initial size)…
    expect([o.buf.length, o.pos]).toEqual([128, 0]);
    // …and a small batch after a large one brings it back down.
    o.byte(1);
    const small = o.handOver(1);
    expect([small.length, small[0], o.buf.length]).toEqual([128, 1, 8]);
    expect(small.buffer).not.toBe(o.buf.buffer);
  });
});
