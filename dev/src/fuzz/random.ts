/**
 * A seeded PRNG (mulberry32): the same seed gives the same requests on every machine, so a failure
 * found by a long run is replayed by its seed and index.
 */
import { seededRandom } from '@evp/core';

export class Random {
  /** Uniform in [0, 1): the repository's one seeded generator (@evp/core). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}
