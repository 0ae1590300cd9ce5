import { ClickHouseError } from '@clickhouse/client';
import { InfraError } from '@evp/core';

/** Every ClickHouse adapter reports under this dependency name, so logs and alerts group its failures. */
export const CLICKHOUSE_DEPENDENCY = 'clickhouse';

/**
 * ClickHouse error codes (src/Common/ErrorCodes.cpp, names checked with `errorCodeToName`) that
 * describe a passing condition of the server rather than a fault of the statement: waiting and
 * retrying the same statement can succeed. Every other server error (syntax, unknown table, type
 * mismatch, unparsable data, …) fails again on retry, so it is not retriable.
 */
export const RETRIABLE_CLICKHOUSE_CODES: ReadonlySet<number> = new Set([
  159, // TIMEOUT_EXCEEDED
  160, // TOO_SLOW
  173, // CANNOT_ALLOCATE_MEMORY
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  279, // ALL_CONNECTION_TRIES_FAILED
  285, // TOO_FEW_LIVE_REPLICAS
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED
  425, // SYSTEM_ERROR
  999, // KEEPER_EXCEPTION
]);

/** Node socket error codes: the server could not be reached or the connection broke. */
const TRANSPORT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/**
 * Errors without a ClickHouse code come from the transport (the client reports its own request
 * timeout as "Timeout error.") or from something in front of the server (a proxy's 502/503 page is
 * passed through as the message text). Those can pass; anything else is a local fault.
 */
const TRANSPORT_TEXT = /^Timeout error\.|socket hang up|\b(502|503|504)\b|Bad Gateway|Service Unavailable|Gateway Time-?out/i;

/** Maps whatever the client threw into an InfraError that says whether a retry can help. */
export function toAnalyticsError(err: unknown, action: string): InfraError {
  if (err instanceof InfraError) return err;
  if (err instanceof ClickHouseError) {
    const code = Number(err.code);
    // The client guesses `type` from the text (any parenthesised capitals), so only the code is shown.
    return new InfraError(CLICKHOUSE_DEPENDENCY, `${action} failed (code ${err.code}): ${firstLine(err.message)}`, {
      retriable: RETRIABLE_CLICKHOUSE_CODES.has(code),
      cause: err,
    });
  }
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const transport = (typeof e.code === 'string' && TRANSPORT_CODES.has(e.code)) || TRANSPORT_TEXT.test(message);
  return new InfraError(CLICKHOUSE_DEPENDENCY, `${action} failed: ${transport ? 'server unreachable: ' : ''}${firstLine(message)}`, {
    retriable: transport,
    cause: err,
  });
}

// Server messages can repeat the whole statement; a bounded single line keeps logs readable.
const firstLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 500);

/**
 * ClickHouse error codes that fault the statement or its target, whatever the rows: waiting for
 * an operator (a migration, a grant) cures them, isolating rows does not.
 */
export const TARGET_CLICKHOUSE_CODES: ReadonlySet<number> = new Set([
  8, // THERE_IS_NO_COLUMN
  16, // NO_SUCH_COLUMN_IN_TABLE
  47, // UNKNOWN_IDENTIFIER
  60, // UNKNOWN_TABLE
  62, // SYNTAX_ERROR
  81, // UNKNOWN_DATABASE
  115, // UNKNOWN_SETTING
  164, // READONLY
  192, // UNKNOWN_USER
  193, // WRONG_PASSWORD
  194, // REQUIRED_PASSWORD
  497, // ACCESS_DENIED
  516, // AUTHENTICATION_FAILED
]);

/**
 * Whether a failed insert may be refused because of some of its rows (unparsable or out-of-range
 * data), so that inserting the rows apart can find them: any non-retriable failure except those of
 * the statement or its target (TARGET_CLICKHOUSE_CODES).
 */
export function mayBeRowFault(err: unknown): boolean {
  if (!(err instanceof InfraError) || err.retriable) return false;
  const cause = err.cause;
  return !(cause instanceof ClickHouseError && TARGET_CLICKHOUSE_CODES.has(Number(cause.code)));
}
