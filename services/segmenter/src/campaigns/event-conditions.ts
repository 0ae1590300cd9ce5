import { at, contractEvent, isObject, jsonType, validateDefinition } from '@evp/segment-language';
import type { CampaignReasons } from './rules';

/**
 * The event trigger and the goal are event conditions of the segment language, checked by its own
 * validator (packages/segment-language/src/language/validate.ts) with its rules and messages; their paths are moved
 * under where the condition sits (`$.where[0].op` → `$.trigger.event.where[0].op`).
 */

/** Keys of an event condition this use of it refuses, each with why; and keys its caller checks itself. */
export interface EventConditionUse {
  refused: Readonly<Record<string, string>>;
  ownKeys?: readonly string[];
}

/** Checks the event condition at `path`; gives its event's canonical name when that is an event of the contract. */
export function checkEventCondition(reasons: CampaignReasons, path: string, value: unknown, use: EventConditionUse): string | undefined {
  if (!isObject(value)) {
    reasons.add(
      path,
      value === undefined ? 'required' : 'type',
      `an event condition must be an object {"event": NAME, "where": [...]}, got ${jsonType(value)}`,
    );
    return undefined;
  }
  if (!Object.hasOwn(value, 'event')) {
    reasons.add(path, 'condition_kind', 'must be an event condition: {"event": NAME, "where": [...]}');
    return undefined;
  }
  const condition = { ...value };
  for (const [key, why] of Object.entries(use.refused)) {
    if (!Object.hasOwn(condition, key)) continue;
    reasons.add(at(path, key), 'unsupported', why);
    delete condition[key];
  }
  for (const key of use.ownKeys ?? []) delete condition[key];
  // An event condition refers to no segment: nothing to look up.
  const r = validateDefinition(condition, { definitionOf: () => undefined });
  if (!r.ok) for (const p of r.reasons) reasons.list.push({ ...p, path: path + p.path.slice(1) });
  return typeof value.event === 'string' ? contractEvent(value.event)?.name : undefined;
}
