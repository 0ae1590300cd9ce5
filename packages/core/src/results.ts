/**
 * The result types, one per layer (docs/architecture.md, "Results"), and the one reason shape they
 * share. Build them with the named constructors, never as literals, so that a result is read the
 * same way wherever it is made (PostHog's ingestion `pipelines/results.ts` is the model).
 */

/** Why something was refused, or a warning: where, which rule, and why. `R` narrows the rule names (the ingest contract's are RuleName, schemas/src/rules). */
export interface RejectionReason<R extends string = string> {
  /** JSON path of the offending value, e.g. `$.data[3].ctx.rate_value`. */
  path: string;
  /** Stable rule name, e.g. `required`, `enum`, `type`, `range`. */
  rule: R;
  message: string;
}

/** Consumers, per item (the campaign worker's triggers): accepted, rejected with reasons, or to be retried later. */
export type Outcome<T> =
  { kind: 'accepted'; value: T; warnings?: RejectionReason[] } | { kind: 'rejected'; reasons: RejectionReason[] } | { kind: 'retry'; reason: string };

export const accepted = <T>(value: T, warnings?: RejectionReason[]): Outcome<T> =>
  warnings && warnings.length > 0 ? { kind: 'accepted', value, warnings } : { kind: 'accepted', value };
export const rejected = <T = never>(reasons: RejectionReason[]): Outcome<T> => ({ kind: 'rejected', reasons });
export const retry = <T = never>(reason: string): Outcome<T> => ({ kind: 'retry', reason });

/**
 * Request parsing (HTTP bodies, queue messages) and domain commands (segment definitions, campaign
 * documents and settings, campaign state changes): the value, or every reason it was refused, all
 * at once. Whether a refusal is a 400 or a 409 is the caller's (the HTTP layer's) to say.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; reasons: RejectionReason[] };

export const checked = <T>(value: T): Checked<T> => ({ ok: true, value });
export const refused = <T = never>(reasons: RejectionReason[]): Checked<T> => ({ ok: false, reasons });
