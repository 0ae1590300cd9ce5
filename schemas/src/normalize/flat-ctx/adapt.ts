import type { Reason } from '../../rules/registry';
import type { EventDef, ObjectDef } from '../../dsl/types';
import type { EnvelopeFacts, RawEvent } from '../types';
import { adaptActionResponse } from './action-response';
import { coerceToDef } from './coerce';
import { FLAT_CTX_MAPPINGS } from './mappings';
import { rebuildFlatCtx } from './rebuild';

/**
 * The Kenkai iOS client (causalfoundry/ios-sdk 1.0.0–1.0.1) and the Kenkai Core 1.0.10 inside
 * causalfoundry/unity-sdk, recognised once per envelope by their sdk and the current form
 * (clients/identity.ts; `rn/ios/1.0.<n>` is read as `ios` `1.0.<n>`, warning `sdk_wrapper`).
 */
const isKenkai = (facts: Pick<EnvelopeFacts, 'line'>): boolean => facts.line === 'ios-kenkai' || facts.line === 'unity-ios';

const specKeys = new WeakMap<ObjectDef, ReadonlySet<string>>();
/** The property names (and their accepted spellings) of a definition. */
function specKeysOf(def: ObjectDef): ReadonlySet<string> {
  let keys = specKeys.get(def);
  if (!keys) specKeys.set(def, (keys = new Set(Object.entries(def.fields).flatMap(([n, f]) => [n, ...(f.aliases ?? [])]))));
  return keys;
}

/** Keys of the pull answer's `internal` object that the client copies into action_response. */
const PULLED_INTERNAL_KEYS = ['inv_id', 'action_id'];

export interface AdaptedEvent {
  props: Record<string, unknown>;
  property: string | null;
  warnings: Reason[];
  /**
   * The event is a flattening client's (Kenkai by its sdk, or any client by a flattened ctx): the
   * required fields that client leaves out (`client.mayOmit`) are tolerated (dsl/omissions.ts).
   */
  flattening: boolean;
}

/**
 * A current-form log's properties as the spec shapes them (docs/data-contract.md, "Real clients").
 * A flattened ctx is recognised in two ways: by its shape (FLAT_CTX_MAPPINGS: a flat key where the
 * spec has an object or another name, with the spec's property absent, so a ctx in the spec's shape
 * is never touched, whatever the client), or by the Kenkai sdk string. For such events the single
 * values are read back too (coerce.ts), and the required fields the client leaves out are accepted
 * with a warning (`flattening`: normalize.ts validates with dsl/omissions.ts). `property: ""` (what
 * Kenkai sends for no property) is null, with the warning `empty_property`. Every warning here is a
 * quirk of the Kenkai clients: from any other client normalize.ts turns it into the spec's rule
 * (quirks/gate.ts), so a flattened ctx is accepted from the Kenkai sdks only.
 */
export function adaptCurrentFormEvent(input: { def: EventDef; raw: RawEvent; facts: EnvelopeFacts; path: string }): AdaptedEvent {
  const { def, raw, facts, path } = input;
  const propsPath = `${path}.ctx`;
  const warnings: Reason[] = [];
  let property = raw.property;
  if (property === '') {
    property = null;
    warnings.push({ path: `${path}.property`, rule: 'empty_property', message: 'an empty property stands for none; stored as null' });
  }
  const kenkai = isKenkai(facts);
  const mapping = FLAT_CTX_MAPPINGS[def.event];
  let props = raw.props;
  let flat = kenkai;
  if (mapping) {
    const rebuilt = rebuildFlatCtx(mapping, props, propsPath, specKeysOf(def), kenkai);
    props = rebuilt.props;
    warnings.push(...rebuilt.warnings);
    flat ||= rebuilt.moved;
  }
  if (def.event === 'nudge_response') {
    const pulledInternal = PULLED_INTERNAL_KEYS.every((k) => Object.hasOwn(props, k));
    if (kenkai || pulledInternal) {
      const a = adaptActionResponse(props, raw.time, kenkai || (raw.name === 'action_response' && pulledInternal), propsPath);
      props = a.props;
      warnings.push(...a.warnings);
      flat = true;
    }
  }
  if (!flat) return { props, property, warnings, flattening: false };
  if (mapping) props = readUnits(mapping, props, propsPath, warnings);
  props = coerceToDef(def, props, propsPath, warnings);
  return { props, property, warnings, flattening: true };
}

/**
 * Units of the flattening client: seconds where the spec has ms. (Its epoch for an unset delivery
 * time is the definition's business, as for the older iOS line: `epoch_zero_time`.)
 */
function readUnits(mapping: (typeof FLAT_CTX_MAPPINGS)[string], props: Record<string, unknown>, propsPath: string, warnings: Reason[]) {
  let out = props;
  for (const k of mapping.secondsToMs ?? []) {
    const v = props[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    out = out === props ? { ...props } : out;
    out[k] = v * 1000;
    warnings.push({ path: `${propsPath}.${k}`, rule: 'render_time_seconds', message: `${k} is sent in whole seconds; ${v} s read as ${v * 1000} ms` });
  }
  return out;
}
