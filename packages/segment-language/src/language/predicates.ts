import { CATALOG_KINDS } from '@evp/core';
import type { ObjectDef } from '@evp/schemas';
import { catalogFields, catalogKind, isPathProblem, resolvePath, valueClass } from './contract';
import { checkOpValue } from './operators';
import { at, isObject, jsonType, LIMITS, type Reasons } from './rules';

const PROP_KEYS = ['prop', 'op', 'value'];
const CATALOG_KEYS = ['catalog', 'via', 'where'];

/** Reports every key of `node` not in `keys`. */
export function onlyKeys(reasons: Reasons<'unknown_key'>, path: string, node: Record<string, unknown>, keys: readonly string[], what: string): void {
  for (const key of Object.keys(node)) {
    if (!keys.includes(key)) reasons.add(at(path, key), 'unknown_key', `${what} has no key ${key} (its keys: ${keys.join(', ')})`);
  }
}

/** `node[key]` when it is a non-empty string; reports it and gives undefined when it is not. */
export function stringAt(reasons: Reasons<'required' | 'type'>, path: string, node: Record<string, unknown>, key: string): string | undefined {
  const v = node[key];
  if (typeof v === 'string' && v.length > 0) return v;
  if (v === undefined) reasons.add(at(path, key), 'required', `${key} is required`);
  else reasons.add(at(path, key), 'type', `${key} must be a non-empty string, got ${v === '' ? 'an empty one' : jsonType(v)}`);
  return undefined;
}

/**
 * A `where` list over an object's properties (`def`: the event's, or a catalog kind's record). At the
 * event's level (catalogs allowed) an entry may also be a catalog predicate.
 */
export function checkWhere(reasons: Reasons, path: string, where: unknown, def: ObjectDef, label: string, catalogs: boolean): void {
  if (!Array.isArray(where)) return reasons.add(path, 'type', `where must be an array of predicates, got ${jsonType(where)}`);
  if (where.length > LIMITS.predicates) return reasons.add(path, 'max_items', `where takes at most ${LIMITS.predicates} predicates`);
  where.forEach((p, i) => {
    const here = at(path, i);
    if (!isObject(p)) return reasons.add(here, 'type', `a predicate must be an object, got ${jsonType(p)}`);
    if (Object.hasOwn(p, 'catalog')) {
      if (!catalogs) return reasons.add(here, 'nested_catalog', 'a catalog predicate cannot sit inside another catalog predicate');
      return checkCatalogPredicate(reasons, here, p, def, label);
    }
    checkPropPredicate(reasons, here, p, def, label);
  });
}

function checkPropPredicate(reasons: Reasons, path: string, p: Record<string, unknown>, def: ObjectDef, label: string): void {
  onlyKeys(reasons, path, p, PROP_KEYS, 'a predicate');
  const prop = stringAt(reasons, path, p, 'prop');
  if (prop === undefined) return;
  const resolved = resolvePath(def, prop, label);
  if (isPathProblem(resolved)) return reasons.add(at(path, 'prop'), resolved.rule, resolved.message);
  checkOpValue(reasons, path, p, { type: resolved.type, many: resolved.many, label: prop });
}

/**
 * `{"catalog": KIND, "via": PATH, "where": [...]}`: the event refers at `via` (a string, or strings
 * through `[]`) to a record of KIND whose latest version matches `where`.
 */
function checkCatalogPredicate(reasons: Reasons, path: string, p: Record<string, unknown>, event: ObjectDef, label: string): void {
  onlyKeys(reasons, path, p, CATALOG_KEYS, 'a catalog predicate');
  const name = stringAt(reasons, path, p, 'catalog');
  const kind = name === undefined ? undefined : catalogKind(name);
  if (name !== undefined && !kind) reasons.add(at(path, 'catalog'), 'unknown_catalog', `${name} is not a catalog kind: one of ${CATALOG_KINDS.join(', ')}`);
  const viaPath = stringAt(reasons, path, p, 'via');
  if (viaPath !== undefined) {
    const via = resolvePath(event, viaPath, label);
    if (isPathProblem(via)) reasons.add(at(path, 'via'), via.rule, via.message);
    else if (valueClass(via.type) !== 'string') {
      const hint = via.type.kind === 'array' ? ` (write ${viaPath}[] to read its elements)` : '';
      reasons.add(at(path, 'via'), 'via_type', `via must read a string id: ${viaPath} is not a string${hint}`);
    }
  }
  if (p.where === undefined) return reasons.add(at(path, 'where'), 'required', 'where is required (it may be empty: any record of the kind)');
  if (kind) checkWhere(reasons, at(path, 'where'), p.where, catalogFields(kind), `the ${kind} catalog`, false);
}
