import { entryHash, GENESIS, type AccessEntry } from './model';

/** The first broken link of a chain, or how many entries hold together. */
export type ChainVerdict =
  | { ok: true; entries: number; head: { seq: number; hash: string } | undefined }
  | { ok: false; seq: number; reason: 'hash_mismatch' | 'link_mismatch' | 'missing_entry' | 'head_mismatch'; entries: number };

/**
 * Walks one app's entries in order. A modified entry fails its own hash (reported at its seq); a
 * deleted one leaves a gap (reported at the missing seq); a deleted tail disagrees with the head the
 * store keeps (reported at the first missing seq). `first` is the seq the store starts at (1 unless
 * an operator trimmed old entries: the first kept entry's prev_hash is then taken on trust).
 */
export class ChainVerifier {
  private expectSeq: number;
  private prev: string | undefined;
  private count = 0;
  private broken: ChainVerdict | undefined;

  constructor(first = 1) {
    this.expectSeq = first;
    this.prev = first === 1 ? GENESIS : undefined;
  }

  /** Feeds the next entries in seq order; false once a link is broken (stop reading). */
  add(entries: readonly AccessEntry[]): boolean {
    for (const e of entries) {
      if (this.broken) return false;
      const { hash, ...rest } = e;
      if (e.seq !== this.expectSeq) this.broken = { ok: false, seq: this.expectSeq, reason: 'missing_entry', entries: this.count };
      else if (entryHash(rest) !== hash) this.broken = { ok: false, seq: e.seq, reason: 'hash_mismatch', entries: this.count };
      else if (this.prev !== undefined && e.prev_hash !== this.prev) this.broken = { ok: false, seq: e.seq, reason: 'link_mismatch', entries: this.count };
      else {
        this.prev = hash;
        this.expectSeq += 1;
        this.count += 1;
      }
    }
    return this.broken === undefined;
  }

  /** The verdict, checked against the head the store keeps (the last entry it appended). */
  finish(head: { seq: number; hash: string } | undefined): ChainVerdict {
    if (this.broken) return this.broken;
    const last = this.count === 0 ? undefined : { seq: this.expectSeq - 1, hash: this.prev as string };
    const heldSeq = head?.seq ?? 0;
    const lastSeq = last?.seq ?? this.expectSeq - 1;
    // The head ahead of the entries: the tail was deleted; behind them: entries were added past it.
    if (heldSeq !== lastSeq) return { ok: false, seq: Math.min(heldSeq, lastSeq) + 1, reason: 'head_mismatch', entries: this.count };
    if (head && last && head.hash !== last.hash) return { ok: false, seq: head.seq, reason: 'head_mismatch', entries: this.count };
    return { ok: true, entries: this.count, head: last };
  }
}

/** The verdict over a whole chain held in memory (tests, small apps). */
export function verifyChain(entries: readonly AccessEntry[], head: { seq: number; hash: string } | undefined, first = 1): ChainVerdict {
  const v = new ChainVerifier(first);
  v.add(entries);
  return v.finish(head);
}
