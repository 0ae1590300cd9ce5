/** What became of one message: accepted, rejected with reasons, or to be retried later. */
/** `R` narrows the rule names (the ingest contract's are RuleName, schemas/src/rules). */
export interface RejectionReason<R extends string = string> {
  /** JSON path of the offending value, e.g. `$.data[3].ctx.rate_value`. */
  path: string;
  /** Stable rule name, e.g. `required`, `enum`, `type`, `range`. */
  rule: R;
  message: string;
}

export type Outcome<T> =
  { kind: 'accepted'; value: T; warnings?: RejectionReason[] } | { kind: 'rejected'; reasons: RejectionReason[] } | { kind: 'retry'; reason: string };

export const accepted = <T>(value: T, warnings?: RejectionReason[]): Outcome<T> =>
  warnings && warnings.length > 0 ? { kind: 'accepted', value, warnings } : { kind: 'accepted', value };
export const rejected = <T = never>(reasons: RejectionReason[]): Outcome<T> => ({ kind: 'rejected', reasons });
export const retry = <T = never>(reason: string): Outcome<T> => ({ kind: 'retry', reason });
