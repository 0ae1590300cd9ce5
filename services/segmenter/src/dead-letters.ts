import { errorMessage, type BusMessage, type OutgoingMessage } from '@evp/core';

/** Headers of a dead letter: where the message was and why it could not be handled. */
export const DEAD_LETTER_HEADERS = {
  sourceTopic: 'source_topic',
  sourcePartition: 'source_partition',
  sourceOffset: 'source_offset',
  group: 'group',
  error: 'error',
  failedAt: 'failed_at',
} as const;

// A header is not a log: a server message quoting a whole row is cut to a readable size.
const MAX_ERROR_CHARS = 2_000;

/**
 * A message whose row ClickHouse refused on its own → its dead letter: the original key and value
 * unchanged (so it can be replayed once the cause is fixed), the original headers, and provenance.
 */
export function deadLetterOf(msg: BusMessage, why: { group: string; table: string; err: unknown; failedAt: number }): OutgoingMessage {
  return {
    ...(msg.key === null ? {} : { key: msg.key }),
    value: msg.value,
    headers: {
      ...msg.headers,
      [DEAD_LETTER_HEADERS.sourceTopic]: msg.topic,
      [DEAD_LETTER_HEADERS.sourcePartition]: String(msg.partition),
      [DEAD_LETTER_HEADERS.sourceOffset]: msg.offset,
      [DEAD_LETTER_HEADERS.group]: why.group,
      [DEAD_LETTER_HEADERS.error]: `insert into ${why.table}: ${errorMessage(why.err)}`.slice(0, MAX_ERROR_CHARS),
      [DEAD_LETTER_HEADERS.failedAt]: new Date(why.failedAt).toISOString(),
    },
  };
}
