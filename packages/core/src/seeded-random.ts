/**
 * mulberry32: a small seeded generator, uniform in [0, 1). The same seed gives the same numbers on
 * every machine, so a fault run's uploads, a fuzz failure (by its seed and index), a report's Monte
 * Carlo and a simulation test are all reproducible. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
