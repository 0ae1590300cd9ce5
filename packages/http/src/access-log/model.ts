import { sha256Hex } from '@evp/core';

/** What a route reports of one read of stored data; the log adds the sequence, the time and the chain. */
export interface AccessRead {
  appId: string;
  keyId: string;
  role: string;
  /** The route as its pattern (`GET /v1/inspect/events`, `SQL`), never the URL (it may hold a user id). */
  route: string;
  /** The person read, when the route is about one person (a user id); null otherwise. */
  person?: string | null;
  /** Rows the answer carried, when the route knows before answering. */
  rows?: number | null;
  /** Bytes of the answer (SQL). */
  bytes?: number | null;
  /** Time the read took, ms (SQL). */
  elapsedMs?: number | null;
  /** The statement (SQL): its SHA-256 is over the whole text; the text kept is cut at STATEMENT_MAX_CHARS. */
  statement?: string | null;
}

/** One entry as stored and answered by GET /v1/audit/reads (snake_case: the API's field names). */
export interface AccessEntry {
  /** 1, 2, 3, … per app, without gaps: a missing number is a deleted entry. */
  seq: number;
  /** Epoch ms of the append (the writer's clock). */
  at: number;
  app_id: string;
  key_id: string;
  role: string;
  route: string;
  person: string | null;
  rows: number | null;
  bytes: number | null;
  elapsed_ms: number | null;
  statement_hash: string | null;
  statement: string | null;
  /** The hash of the app's previous entry (GENESIS for seq 1). */
  prev_hash: string;
  /** SHA-256 over this entry's fields, prev_hash included (entryHash). */
  hash: string;
}

/** The prev_hash of an app's first entry. */
export const GENESIS = '0'.repeat(64);

/** Statements longer than this are kept cut (their hash is over the whole text): 8 KiB keeps an entry small. */
export const STATEMENT_MAX_CHARS = 8192;

/** The hashed fields, in this order: one list, used by the writer and the verifier. */
const HASHED: readonly (keyof Omit<AccessEntry, 'hash'>)[] = [
  'seq',
  'at',
  'app_id',
  'key_id',
  'role',
  'route',
  'person',
  'rows',
  'bytes',
  'elapsed_ms',
  'statement_hash',
  'statement',
  'prev_hash',
];

/** SHA-256 hex of the JSON array of the hashed fields: any changed field, or a changed link, changes it. */
export function entryHash(e: Omit<AccessEntry, 'hash'>): string {
  return sha256Hex(JSON.stringify(HASHED.map((f) => e[f])));
}

/** The next entry of a chain whose head is `head` (undefined: the app's first). */
export function chainEntry(read: AccessRead, at: number, head: { seq: number; hash: string } | undefined): AccessEntry {
  const statement = read.statement ?? null;
  const e: Omit<AccessEntry, 'hash'> = {
    seq: (head?.seq ?? 0) + 1,
    at,
    app_id: read.appId,
    key_id: read.keyId,
    role: read.role,
    route: read.route,
    person: read.person ?? null,
    rows: read.rows ?? null,
    bytes: read.bytes ?? null,
    elapsed_ms: read.elapsedMs ?? null,
    statement_hash: statement === null ? null : sha256Hex(statement),
    statement: statement === null ? null : statement.slice(0, STATEMENT_MAX_CHARS),
    prev_hash: head?.hash ?? GENESIS,
  };
  return { ...e, hash: entryHash(e) };
}
