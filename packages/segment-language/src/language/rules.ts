import type { RejectionReason } from '@evp/core';

/**
 * The rules a definition is checked against, by the name every problem carries (stable: clients may
 * branch on them). docs/segments.md lists each; a test keeps the two in step.
 */
export const DEFINITION_RULES = {
  type: 'a value has the wrong JSON type (object, array, string, number, …)',
  condition_kind: 'an object is not a condition, or has the keys of several kinds',
  unknown_key: 'a key the condition, predicate, window or count does not have',
  required: 'a required key is missing',
  min_items: 'a list is too short (all/any need a condition, a sequence two steps, in/nin a value)',
  max_items: 'a list is too long (where, sequence steps, in/nin values)',
  max_depth: 'conditions nest deeper than the limit',
  max_conditions: 'more leaf conditions than the limit (in the definition, or with referenced segments inlined)',
  unknown_event: 'no event of the data contract has this name',
  unknown_property: "the path is not a property of the event's (or catalog record's) contract",
  array_path: 'an array is crossed without [] or [] follows something that is not an array',
  unknown_op: 'not one of the operators',
  op_type: "the operator does not apply to the property's type",
  value_type: "the value does not fit the property's type or the operator",
  enum_value: "the value is not one of the enum's values",
  exists_value: 'exists takes no value',
  duration: 'not an ISO 8601 duration this language accepts',
  timestamp: 'not an RFC 3339 timestamp this language accepts',
  window_order: "an absolute window's from is not before its to",
  count: 'a count is not exactly one of gte, lte, eq, gt, lt with a non-negative integer',
  unknown_catalog: 'not a catalog kind',
  unknown_field: 'not a field of the catalog kind, or not a profile field',
  via_type: 'the via path does not read a string (or, with [], strings)',
  nested_catalog: 'a catalog predicate inside a catalog predicate',
  aggregate_type: "the aggregate function does not apply to the property's type",
  unknown_fn: 'not one of the aggregate functions',
  id_value: 'an action or invocation id is not an integer from 0 to 2,147,483,647',
  unsupported: 'a part of the language this version does not evaluate',
  unknown_segment: 'no segment of this app has this id',
  segment_cycle: 'segments refer to each other in a cycle',
} as const;

export type DefinitionRule = keyof typeof DEFINITION_RULES;

/** Bounds on a definition's size: the compiled query grows with each of them. */
export const LIMITS = {
  /** Nesting of all / any / not (a lone leaf is depth 1). */
  depth: 8,
  /** Leaf conditions written in one definition. */
  conditions: 64,
  /** Leaf conditions with every referenced segment inlined (what the compiled query holds). */
  inlinedConditions: 256,
  /** Predicates in one `where` (and in a catalog predicate's `where`). */
  predicates: 32,
  /** Steps of a sequence. */
  steps: 16,
  /** Values of one in / nin list. */
  values: 1000,
} as const;

/**
 * Collects reasons, each at a JSON path from the document's root. `Rule`: the rules it may name (a
 * campaign document reuses the helpers below with its own rules; services/segmenter/src/campaigns).
 */
export class Reasons<Rule extends string = DefinitionRule> {
  readonly list: RejectionReason[] = [];

  add(path: string, rule: Rule, message: string): void {
    this.list.push({ path, rule, message });
  }
}

/** `$.all[1]` + `where` → `$.all[1].where`; + 0 → `$.all[1][0]`. */
export const at = (path: string, key: string | number): string => (typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`);

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
