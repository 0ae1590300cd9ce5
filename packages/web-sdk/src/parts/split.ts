import type { Batch } from '../core/queue';

/**
 * The 413 part (lazily loaded: `web-split.js` / an ESM chunk): frozen batches are at most 100 events
 * and 60,000 bytes, so only a platform whose limits are lower answers 413; the core does not carry
 * this for every page. A batch of one event cannot be split (undefined).
 */
/** Halves a batch by envelopes, else by the events of its one envelope (keeping the envelope's own bytes). */
export function splitBatch(b: Batch): [Batch, Batch] | undefined {
  if (b.parts.length > 1) {
    const mid = Math.ceil(b.parts.length / 2);
    const count = (parts: string[]) => (b.p === 'log' ? parts.reduce((a, t) => a + (JSON.parse(t) as { data: unknown[] }).data.length, 0) : parts.length);
    const [x, y] = [b.parts.slice(0, mid), b.parts.slice(mid)];
    return [
      { p: b.p, parts: x, n: count(x) },
      { p: b.p, parts: y, n: count(y) },
    ];
  }
  if (b.p !== 'log' || b.n < 2) return undefined;
  const env = JSON.parse(b.parts[0]!) as { data: unknown[] };
  const mid = Math.ceil(env.data.length / 2);
  const half = (data: unknown[]): Batch => ({ p: b.p, parts: [JSON.stringify({ ...env, data })], n: data.length });
  return [half(env.data.slice(0, mid)), half(env.data.slice(mid))];
}
