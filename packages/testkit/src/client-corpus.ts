import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The real clients' corpus (schemas/corpus/clients, format in its README): one file per client
 * version, each payload as that client builds it, with what the platform must make of it. Read by
 * the validator's corpus test and the end-to-end one (dev/src/client-corpus.test.ts).
 */
const CORPUS_DIR = resolve(__dirname, '../../../schemas/corpus/clients');

/** One event's or record's outcome as the corpus writes it: rule names only, sorted, unique. */
export interface CorpusVerdict {
  status: 'accepted' | 'rejected';
  name: string | null;
  warnings?: string[];
  reasons?: string[];
}

export interface CorpusPayload {
  id: string;
  request: { method: string; path: string; query?: Record<string, string>; auth: 'sdk' | 'api'; headers?: Record<string, string>; body?: unknown };
  expect?: { status: number; body?: 'empty'; verdicts?: CorpusVerdict[]; note?: string };
}

/**
 * Every payload of every corpus file, named `<file> <payload id>`, files in name order, with the
 * headers the client's HTTP stack adds to each of its requests on its own (the file's
 * `stack_headers`: URLSession's or requests' User-Agent), which the platform reads as the client's
 * identity on catalog uploads.
 */
export function clientCorpus(): { name: string; p: CorpusPayload; stackHeaders: Record<string, string> }[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const corpus = JSON.parse(readFileSync(join(CORPUS_DIR, file), 'utf8')) as { payloads: CorpusPayload[]; stack_headers?: Record<string, string> };
      return corpus.payloads.map((p) => ({ name: `${file} ${p.id}`, p, stackHeaders: corpus.stack_headers ?? {} }));
    });
}

/** Rule names of a list of reasons, as the corpus writes them. */
export const ruleNames = (list: readonly { rule: string }[] | undefined): string[] => [...new Set((list ?? []).map((r) => r.rule))].sort();
