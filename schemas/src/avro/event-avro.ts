import { EVENT_WRITERS } from '../../generated/event-writers';
import type { CanonicalEvent } from '../canonical';
import type { AvroOut } from './avro-out';
import { clientJsonOf, metaJsonOf, type ClientJsonMemo } from './canonical-codec';

/**
 * Writes the Avro body of a canonical event's block record at `o.pos` with its event type's
 * generated writer (schemas/generated/event-writers.ts): the bytes avsc writes for
 * `canonicalToAvro(e)`, without building that record. False, with `o.pos` back where it was, when
 * the generated writer cannot vouch for the bytes (no writer for the name, a block other than its
 * type's, a value the schema refuses): the caller then encodes `canonicalToAvro(e)` with avsc, so an
 * odd event is encoded, or fails, exactly as before.
 */
export function writeEventAvro(o: AvroOut, e: CanonicalEvent, clientMemo?: ClientJsonMemo): boolean {
  const writer = EVENT_WRITERS.get(e.name);
  if (writer === undefined || writer.block !== e.block) return false;
  const start = o.pos;
  o.invalid = false;
  try {
    writer.write(o, e, metaJsonOf(e), clientJsonOf(e, clientMemo));
  } catch {
    // Only an input no event of the normaliser has (a throwing getter, a cycle): avsc's path says what.
    o.invalid = true;
  }
  if (!o.invalid) return true;
  o.pos = start;
  o.invalid = false;
  return false;
}
