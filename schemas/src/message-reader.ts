import { UnreadableMessageError, errorMessage, type BusMessage } from '@evp/core';
import type { RecordField } from './record-fields';
import { RecordReadError, taggedRecordReader, type RecordOf } from './record-reader';

/**
 * The reader of a JSON work topic's messages (the segment engine's work items, the campaign worker's
 * trigger items): a tagged union of field tables, read as taggedRecordReader reads it. A message that
 * is none is a bug of its producer, so it throws UnreadableMessageError (dead-lettered, never
 * retried): `unreadable` when it is not JSON, `invalid` when it is no `what` (named with its offset).
 */
export function taggedMessageReader<const V extends Record<string, readonly RecordField[]>>(
  tag: string,
  variants: V,
  what: string,
): (m: BusMessage) => { [K in keyof V]: RecordOf<V[K]> }[keyof V] {
  const read = taggedRecordReader(tag, variants);
  return (m) => {
    let v: unknown;
    try {
      v = JSON.parse(m.value.toString('utf8'));
    } catch (err) {
      throw new UnreadableMessageError('unreadable', `not JSON: ${errorMessage(err)}`);
    }
    try {
      return read(v);
    } catch (err) {
      const why = err instanceof RecordReadError ? err.message : String(err);
      throw new UnreadableMessageError('invalid', `not ${what} (${why}): ${m.topic}/${m.partition}/${m.offset}`);
    }
  };
}
