import { HEALTH_BLOCKS, pseudonymise, type AppPrivacy, type PrivacyAction, type SensitiveClass } from '@evp/core';
import {
  catalogDef,
  eventDef,
  fieldPrivacy,
  type AcceptedCatalogRecord,
  type AcceptedEvent,
  type FieldDef,
  type FieldType,
  type ObjectDef,
  type Reason,
} from '@evp/schemas';

/**
 * The validator's privacy step (docs/privacy.md, "Policy"): after an event or catalog record is
 * normalised and before it is encoded, each field is kept, pseudonymised or dropped as the app's
 * policy says for the field's class. The class comes from the contract's tags (fieldPrivacy, the one
 * resolver the reference pages and the classification test use), walked with the definition, never
 * from a hand-kept list. Mutates the accepted value in place: it is the validator's own object.
 */
interface Walk {
  actions: Record<SensitiveClass, PrivacyAction>;
  key: AppPrivacy['key'];
  dropUnknown: boolean;
  /** Where `unknown_property_dropped` goes: the event's or record's warnings. */
  warnings: Reason[];
  /** Relative paths of the unknown properties dropped (their `unknown_property` warnings are renamed). */
  droppedUnknown: string[];
  pseudonymised: boolean;
  /** The fields this walk pseudonymised or dropped, by class (the validator's counters). */
  tally: PrivacyTally;
}

/**
 * What the privacy step did to one message's fields: `<class>:<pseudonymised|dropped>` → fields
 * (each field once per event or record, however many values a list of it holds). A required number,
 * enum or boolean a policy cannot remove is not counted: it was kept.
 */
export type PrivacyTally = Record<string, number>;

function count(w: Walk, cls: SensitiveClass, action: 'pseudonymised' | 'dropped'): void {
  const k = `${cls}:${action}`;
  w.tally[k] = (w.tally[k] ?? 0) + 1;
}

const isHealthBlock = (block: string) => (HEALTH_BLOCKS as readonly string[]).includes(block);

/** The type inside arrays and maps: what a leaf holds. */
function innermost(type: FieldType): FieldType {
  let t = type;
  while (t.kind === 'array' || t.kind === 'map') t = t.kind === 'array' ? t.items : t.values;
  return t;
}

/** Calls `f` on each value inside `value` at the depth of `type`'s innermost type, with its path suffix. */
function eachInner(
  type: FieldType,
  value: unknown,
  path: string,
  f: (v: unknown, path: string, set: (nv: unknown) => void) => void,
  set: (nv: unknown) => void,
): void {
  if (type.kind === 'array' && Array.isArray(value)) value.forEach((x, i) => eachInner(type.items, x, `${path}[${i}]`, f, (nv) => (value[i] = nv)));
  else if (type.kind === 'map' && typeof value === 'object' && value !== null) {
    const m = value as Record<string, unknown>;
    for (const k of Object.keys(m)) eachInner(type.values, m[k], `${path}.${k}`, f, (nv) => (m[k] = nv));
  } else f(value, path, set);
}

/** What a required field becomes when its policy removes it: Avro has no null for it, so an empty value of its type. */
function withheldOf(type: FieldType): unknown {
  if (type.kind === 'array') return [];
  if (type.kind === 'map') return {};
  if (type.kind === 'scalar' && type.scalar === 'string') return '';
  return undefined;
}

function walkObject(def: ObjectDef, value: Record<string, unknown>, path: string, w: Walk): void {
  if (w.dropUnknown && value.__extra !== undefined) {
    for (const k of Object.keys(value.__extra as object)) {
      w.droppedUnknown.push(`${path}.${k}`);
      w.warnings.push({
        path: `${path}.${k}`,
        rule: 'unknown_property_dropped',
        message: `${k} is not part of ${def.name}; dropped (the app drops unknown properties of health blocks)`,
      });
    }
    delete value.__extra;
  }
  for (const name of Object.keys(def.fields)) {
    const v = value[name];
    if (v === undefined || v === null) continue;
    const field = def.fields[name] as FieldDef;
    const inner = innermost(field.type);
    const at = `${path}.${name}`;
    if (inner.kind === 'object') {
      eachInner(
        field.type,
        v,
        at,
        (item, p) => typeof item === 'object' && item !== null && walkObject(inner.def, item as Record<string, unknown>, p, w),
        () => {},
      );
      continue;
    }
    const cls = fieldPrivacy(def, name)?.class;
    if (cls === undefined || cls === 'none') continue;
    const act = w.actions[cls];
    if (act === 'keep') continue;
    const key = w.key;
    if (act === 'pseudonymise' && key !== undefined && inner.kind === 'scalar' && inner.scalar === 'string') {
      eachInner(
        field.type,
        v,
        at,
        (s, _p, set) => typeof s === 'string' && set(pseudonymise(key.secret, key.version, s)),
        (nv) => (value[name] = nv),
      );
      w.pseudonymised = true;
      count(w, cls, 'pseudonymised');
      continue;
    }
    // Drop, or pseudonymise of a value that is not text (a number, enum, boolean or JSON value cannot
    // become an HMAC and keep its type): removed, so nothing of it stays in the clear. No warning: the
    // app chose it for the class, it is the same on every event, and a warning on each would bury the
    // ones that say what a client sent wrong (docs/privacy.md, "Policy").
    if (!field.required) {
      delete value[name];
      count(w, cls, 'dropped');
    } else {
      // Avro has no null for a required field: it stays, empty of its type. A required number, enum
      // or boolean has no empty value and is kept (docs/privacy.md, "Limits").
      const empty = withheldOf(field.type);
      if (empty !== undefined) {
        value[name] = empty;
        count(w, cls, 'dropped');
      }
    }
  }
}

function newWalk(actions: Record<SensitiveClass, PrivacyAction>, policy: AppPrivacy, warnings: Reason[], dropUnknown: boolean, tally: PrivacyTally): Walk {
  return { actions, key: policy.key, dropUnknown, warnings, droppedUnknown: [], pseudonymised: false, tally };
}

const keepsAllMemo = new WeakMap<Record<SensitiveClass, PrivacyAction>, boolean>();

/**
 * Whether a table leaves every class as it is (most blocks of most apps): the step then costs one
 * lookup per event. Memoised per table object, which lives until the keys file is reloaded.
 */
function keepsAll(actions: Record<SensitiveClass, PrivacyAction>): boolean {
  let all = keepsAllMemo.get(actions);
  if (all === undefined) keepsAllMemo.set(actions, (all = Object.values(actions).every((a) => a === 'keep')));
  return all;
}

/**
 * Applies the app's policy to one accepted event (its props; the envelope's fields are not touched:
 * docs/privacy.md), adding what it did to `tally`.
 */
export function applyEventPrivacy(accepted: AcceptedEvent, policy: AppPrivacy, tally: PrivacyTally = {}): void {
  const e = accepted.event;
  const health = isHealthBlock(e.block);
  const actions = health ? policy.health : policy.classes;
  const dropUnknown = health && policy.unknownInHealth === 'drop';
  if (keepsAll(actions) && !dropUnknown) return;
  const def = eventDef(e.name);
  if (def === undefined) return;
  const w = newWalk(actions, policy, e.warnings as Reason[], dropUnknown, tally);
  walkObject(def, e.props, 'props', w);
  if (w.droppedUnknown.length > 0) {
    // The normaliser said "kept as extra"; it is not any more: that warning goes, the dropped one says so.
    const dropped = w.droppedUnknown.map((p) => p.slice('props'.length));
    for (let i = e.warnings.length - 1; i >= 0; i--) {
      const r = e.warnings[i] as Reason;
      if (r.rule === 'unknown_property' && dropped.some((d) => r.path.endsWith(d))) e.warnings.splice(i, 1);
    }
  }
  if (w.pseudonymised && policy.key !== undefined) e.pseudonym_key = policy.key.version;
}

/**
 * Applies the app's policy (`classes`: catalogs are no block) to a built-in catalog record's fields,
 * its id included, so a patient's record joins its events by the same pseudonym. App-defined
 * catalogs have no definition, hence no classes: kept as sent.
 */
export function applyCatalogPrivacy(accepted: AcceptedCatalogRecord, policy: AppPrivacy, tally: PrivacyTally = {}): void {
  const rec = accepted.record;
  if (keepsAll(policy.classes) || 'custom' in rec) return;
  const def = catalogDef(rec.kind);
  const w = newWalk(policy.classes, policy, accepted.warnings, false, tally);
  walkObject(def, rec.record, 'record', w);
  // A user record's id is the events' user_id, which stays in the clear (the action store pulls by
  // it; docs/privacy.md, "Never pseudonymised"): kept, so the record still joins its user's events.
  if (rec.kind === 'user') rec.record.id = rec.id;
  else if (typeof rec.record.id === 'string') rec.id = rec.record.id;
}
