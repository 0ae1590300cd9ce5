import { parseEventTime } from '../normalize/time';
import type { ClientDefault, ClientOmission, RecognisedClient, UnsetValue } from './types';

/**
 * Small constructors for FieldDef.client (what real clients send instead of what the spec says), so a
 * definition names each quirk in one short line. The warning rules are listed in schemas/src/quirks.
 */

/** `values` stand for "not set" (warning `unset_value`), e.g. birth_year `0`. */
export const unsetValues = (...values: readonly unknown[]): UnsetValue => ({
  rule: 'unset_value',
  doc: values.map((v) => JSON.stringify(v)).join(' or '),
  is: (v) => values.includes(v),
});

/** `""` for a string that only has a meaning when set (nudge_response `details`): warning `empty_details`. */
export const emptyDetails: UnsetValue = { rule: 'empty_details', doc: 'an empty string', is: (v) => v === '' };

/**
 * An ISO time that is the Unix epoch in any offset (`1970-01-01T03:00:00.000+03:00`): what a client
 * formats when it has no time (causalfoundry/ios-sdk delivery `est_delivery_ts`). Warning `epoch_zero_time`.
 */
export const epochZeroTime: UnsetValue = {
  rule: 'epoch_zero_time',
  doc: 'the Unix epoch, 1970-01-01T00:00:00Z in any offset',
  is: (v) => typeof v === 'string' && parseEventTime(v, undefined) === 0,
};

/** The default a client's omission means (warning `default_applied`). */
export const defaultTo = (doc: string, value: (input: Record<string, unknown>) => unknown): ClientDefault => ({ doc, value });

/** A required field these clients leave out (warning `required_missing`, for their events only); `why` completes "… is required by the spec but". */
export const leftOutBy = (by: RecognisedClient | readonly RecognisedClient[], why: string): ClientOmission => ({ by: typeof by === 'string' ? [by] : by, why });
