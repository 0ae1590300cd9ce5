import type { ObjectRule, RuleProblem } from './types';
import type { RuleName } from '../rules/registry';

/**
 * Small constructors for cross-field rules. The spec states several conditions in prose ("needed for
 * add", "only for response error"); writing them through these helpers keeps each rule one line in the
 * definition, with a stable rule name that rejected records and the corpus test can match on.
 * Rules run only on an object whose fields already passed their type checks, so values are typed.
 */
type Pred = (v: Record<string, unknown>) => boolean;

const present = (v: Record<string, unknown>, field: string) => v[field] !== undefined && v[field] !== null;

/** `field` must be present whenever `when` holds (e.g. reward `acc_points` for action add). */
export const requiredWhen =
  (field: string, when: Pred, rule: RuleName, message: string): ObjectRule =>
  (v) =>
    when(v) && !present(v, field) ? [{ path: field, rule, message }] : [];

/** `field` may only be present when `when` holds (e.g. nudge_response `details` only for error). */
export const onlyWhen =
  (field: string, when: Pred, rule: RuleName, message: string): ObjectRule =>
  (v) =>
    !when(v) && present(v, field) ? [{ path: field, rule, message }] : [];

/** At least one of `fields` must be present; reported on the object itself (`path` prefix optional). */
export const oneOf =
  (fields: readonly string[], rule: RuleName, message: string, path = ''): ObjectRule =>
  (v) =>
    fields.some((f) => present(v, f)) ? [] : [{ path, rule, message }];

/** Runs `rules` against a nested object field and prefixes their paths; absent field → no problems. */
export const onNested =
  (field: string, rules: readonly ObjectRule[]): ObjectRule =>
  (v) => {
    const nested = v[field];
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) return [];
    return rules.flatMap((r) => r(nested as Record<string, unknown>).map((p): RuleProblem => ({ ...p, path: p.path ? `${field}.${p.path}` : field })));
  };

/** The rule applies only when `when` holds. */
export const ruleWhen =
  (when: Pred, rules: readonly ObjectRule[]): ObjectRule =>
  (v) =>
    when(v) ? rules.flatMap((r) => r(v)) : [];

export const is =
  (field: string, ...values: unknown[]): Pred =>
  (v) =>
    values.includes(v[field]);

/** Reports `problem` as a warning (a known client quirk: accepted, named) instead of an error. */
export const asWarning =
  (rule: ObjectRule): ObjectRule =>
  (v) =>
    rule(v).map((p) => ({ ...p, warning: true as const }));

/** A problem whenever `when` holds (e.g. app `start_time` ≠ 0 for an action other than open). */
export const problemWhen =
  (path: string, when: Pred, rule: RuleName, message: string): ObjectRule =>
  (v) =>
    when(v) ? [{ path, rule, message }] : [];
