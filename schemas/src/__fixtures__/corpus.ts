import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A case of the event corpus (schemas/corpus/README.md), valid or invalid. */
export interface CorpusCase {
  event: string;
  /** The name as sent, when it is a client's spelling or alias. */
  sent?: string;
  props: Record<string, unknown>;
  meta?: unknown;
}

/** Every case of the event corpus, valid then invalid, file by file in name order. */
export function corpusCases(): CorpusCase[] {
  const dir = join(__dirname, '../../corpus/events');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const d = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { valid: CorpusCase[]; invalid?: CorpusCase[] };
      return [...d.valid, ...(d.invalid ?? [])];
    });
}

/** Deterministic PRNG (mulberry32): the same stream every run and every machine. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
