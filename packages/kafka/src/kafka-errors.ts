import { KafkaJSError } from 'kafkajs';
import { InfraError } from '@evp/core';

/**
 * kafkajs errors → InfraError. Producing or fetching that failed because the cluster was unreachable,
 * slow or electing a leader is worth retrying later; a bad request (unknown topic with auto-create
 * off, record too large, authorization) is not.
 */
const PERMANENT = new Set(['KafkaJSNonRetriableError', 'KafkaJSInvalidVarIntError', 'KafkaJSInvalidLongError', 'KafkaJSSASLAuthenticationError']);
/** Protocol errors for which the broker refused the whole request, appending nothing. */
export const PERMANENT_PROTOCOL: ReadonlySet<string> = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'INVALID_TOPIC_EXCEPTION',
]);

export function toInfraError(err: unknown, what: string): InfraError {
  if (err instanceof InfraError) return err;
  if (err instanceof KafkaJSError) {
    const type = (err as KafkaJSError & { type?: string }).type;
    const permanent = PERMANENT.has(err.name) || (type !== undefined && PERMANENT_PROTOCOL.has(type));
    return new InfraError('kafka', `${what}: ${err.message}`, { retriable: !permanent, cause: err });
  }
  return new InfraError('kafka', `${what}: ${err instanceof Error ? err.message : String(err)}`, {
    retriable: true,
    cause: err,
  });
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new InfraError('kafka', `${what} timed out after ${ms} ms`, { retriable: true })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
