import { InfraError } from '@evp/core';
import { registryError } from './registry-error';

// mappersmith reports a failed connection as a fake HTTP 400 whose body is the socket error text,
// so a transport failure is recognised by that text rather than by the status.
const TRANSPORT_FAILURE = /ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|socket hang up|Timeout \(\d+ms\)/;
const FAKE_STATUS_PREFIX = /^Error, status \d+: /;

/**
 * Turns whatever @kafkajs/confluent-schema-registry threw into an InfraError that says whether a
 * retry can help: transport failures, 5xx, 408 and 429 can; 4xx answers (incompatible or invalid
 * schema, unknown id or subject, bad credentials) and local validation failures cannot.
 */
export function toInfraError(err: unknown, action: string, clientId: string): InfraError {
  if (err instanceof InfraError) return err;
  const e = (err ?? {}) as { name?: string; message?: string; status?: unknown; code?: unknown; paths?: unknown };
  const raw = String(e.message ?? err);
  const text = raw.startsWith(`${clientId} - `) ? raw.slice(clientId.length + 3) : raw;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const transport = TRANSPORT_FAILURE.test(text) || (typeof e.code === 'string' && TRANSPORT_FAILURE.test(e.code));
  const retriable = transport || (status !== undefined && (status >= 500 || status === 408 || status === 429));
  const detail = transport
    ? `registry unreachable (${text.replace(FAKE_STATUS_PREFIX, '')})`
    : status !== undefined
      ? `registry answered ${status}: ${text}`
      : text;
  const paths = Array.isArray(e.paths) && e.paths.length > 0 ? ` at ${e.paths.map(formatPath).join(', ')}` : '';
  return registryError(`${action} failed: ${detail}${paths}`, { retriable, cause: err });
}

function formatPath(path: unknown): string {
  return Array.isArray(path) ? `$.${path.join('.')}` : String(path);
}
