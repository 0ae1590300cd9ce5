import type { Reason } from '../../rules/registry';
import { isObject } from '@evp/contract';
import type { FlatCtxMapping, FlatTarget } from './mappings';
import type { RuleName } from '../../rules/registry';

/** The separator the client's flattening joins arrays with (`list.joined(separator: ", ")`). */
export const JOIN_SEPARATOR = ', ';

/** Splits a joined list as the client joined it; a value that is not a string is one element. */
export const splitJoined = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' ? (v.length === 0 ? [] : v.split(JOIN_SEPARATOR)) : [v]);

interface ParsedTarget {
  /** The target as written in the table (`items[0].id`). */
  to: string;
  /** The property of the event the target lives under. */
  root: string;
  /** `[0]`: the one element of a list; `[*]`: one element per joined part; null: no list. */
  list: '0' | '*' | null;
  /** Path below the root (or below the list element); empty for a plain rename. */
  rest: string[];
  rule: RuleName | null;
  message: string | null;
}

const parsed = new Map<string, ParsedTarget>();

function parseTarget(t: FlatTarget): ParsedTarget {
  const to = typeof t === 'string' ? t : t.to;
  let p = parsed.get(to);
  if (!p) {
    const [head, ...rest] = to.split('.');
    const m = /^(.+)\[(0|\*)\]$/.exec(head as string);
    p = { to, root: m ? (m[1] as string) : (head as string), list: m ? (m[2] as '0' | '*') : null, rest, rule: null, message: null };
    parsed.set(to, p);
  }
  return typeof t === 'string' ? p : { ...p, rule: t.rule, message: t.message };
}

const targetsOf = (t: FlatTarget | readonly FlatTarget[]): readonly FlatTarget[] => (Array.isArray(t) ? (t as readonly FlatTarget[]) : [t as FlatTarget]);

/** Sets `value` at `path` below `obj`, creating plain objects on the way. */
function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown) {
  let at = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as string;
    if (!isObject(at[k])) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[path[path.length - 1] as string] = value;
}

export interface Rebuilt {
  props: Record<string, unknown>;
  warnings: Reason[];
  /** Whether any key was moved: the ctx was in the flattened shape. */
  moved: boolean;
}

/**
 * A flattened ctx → the spec's properties, by the event's entry of FLAT_CTX_MAPPINGS. Keys that no
 * entry names stay where they are (the validator keeps them as extras). The ctx counts as flattened
 * when its client is known to flatten every ctx (`knownFlattened`: the Kenkai sdk), or when it holds
 * a key of the entry that the spec's properties (`specKeys`) do not have, or a joined string where
 * the spec has a list: a spec-shaped ctx of another client, even one missing a property, is left as
 * it is. A key is moved only when the property it belongs to is not sent already, and list keys
 * zipped into one list only when their part counts agree (otherwise they stay as sent).
 */
export function rebuildFlatCtx(
  mapping: FlatCtxMapping,
  ctx: Record<string, unknown>,
  propsPath: string,
  specKeys: ReadonlySet<string>,
  knownFlattened = false,
): Rebuilt {
  const sources = Object.keys(mapping.keys);
  const flattened =
    knownFlattened ||
    sources.some(
      (k) =>
        Object.hasOwn(ctx, k) &&
        (!specKeys.has(k) || (typeof ctx[k] === 'string' && targetsOf(mapping.keys[k] as FlatTarget).some((t) => parseTarget(t).list === '*'))),
    );
  if (!flattened) return { props: ctx, warnings: [], moved: false };
  const taken = (root: string) => Object.hasOwn(ctx, root) && !sources.includes(root);
  // Which keys move where, decided before anything is moved.
  const moves: { key: string; target: ParsedTarget }[] = [];
  for (const key of sources) {
    if (!Object.hasOwn(ctx, key) || ctx[key] === null || ctx[key] === undefined) continue;
    const targets = targetsOf(mapping.keys[key] as FlatTarget | readonly FlatTarget[]).map(parseTarget);
    if (targets.some((t) => taken(t.root))) continue;
    // Only a joined string is split: a list sent as a list is already in the spec's shape.
    if (targets.some((t) => t.list === '*') && typeof ctx[key] !== 'string') continue;
    for (const target of targets) moves.push({ key, target });
  }
  // Zipped lists: every key feeding one `[*]` list must split into the same number of parts.
  const partCounts = new Map<string, Set<number>>();
  for (const { key, target } of moves) {
    if (target.list !== '*') continue;
    const counts = partCounts.get(target.root) ?? new Set<number>();
    counts.add(splitJoined(ctx[key]).length);
    partCounts.set(target.root, counts);
  }
  const usable = moves.filter(({ target }) => target.list !== '*' || (partCounts.get(target.root) as Set<number>).size === 1);
  if (usable.length === 0) return { props: ctx, warnings: [], moved: false };

  const consumed = new Set(usable.map((m) => m.key));
  const props: Record<string, unknown> = {};
  for (const k of Object.keys(ctx)) {
    if (consumed.has(k)) continue;
    if (k === '__proto__') Object.defineProperty(props, k, { value: ctx[k], enumerable: true, writable: true, configurable: true });
    else props[k] = ctx[k];
  }
  const warnings: Reason[] = [];
  const rebuiltObjects = new Map<string, string[]>();
  const warn = (path: string, rule: RuleName, message: string) => warnings.push({ path: `${propsPath}.${path}`, rule, message });
  for (const { key, target } of usable) {
    const value = ctx[key];
    if (target.list === null) {
      if (target.rest.length === 0) props[target.root] = value;
      else {
        if (!isObject(props[target.root])) props[target.root] = {};
        setPath(props[target.root] as Record<string, unknown>, target.rest, value);
      }
    } else {
      if (!Array.isArray(props[target.root])) props[target.root] = [];
      const list = props[target.root] as unknown[];
      const parts = target.list === '0' ? [value] : splitJoined(value);
      parts.forEach((part, i) => {
        if (!isObject(list[i])) list[i] = {};
        setPath(list[i] as Record<string, unknown>, target.rest, part);
      });
    }
    if (target.rule !== null) warn(target.to, target.rule, `${key}: ${target.message}`);
    else if (target.list === '*') warn(target.root, 'joined_list', `${key} is a "${JOIN_SEPARATOR}"-joined string; split into the elements of ${target.root}`);
    else if (target.list === null && target.rest.length === 0) {
      // Plain renames belong to the definitions (mappings.ts; a test keeps the table free of them);
      // should one appear it is still reported, as the definitions report a client's name.
      if (key !== target.root) warn(target.root, 'property_alias', `${key} read as ${target.root}`);
    } else rebuiltObjects.set(target.root, [...(rebuiltObjects.get(target.root) ?? []), key]);
  }
  for (const [root, keys] of rebuiltObjects) {
    warn(root, 'flattened_object', `${root} rebuilt from the flat keys ${keys.join(', ')} (the client merges nested objects into the top level)`);
  }
  for (const bug of mapping.copyBugs ?? []) {
    const a = getPath(props, bug.key);
    if (a !== undefined && a === getPath(props, bug.copyOf)) warn(bug.key, bug.rule, bug.message);
  }
  return { props, warnings, moved: true };
}

function getPath(obj: Record<string, unknown>, path: string): unknown {
  let at: unknown = obj;
  for (const k of path.split('.')) {
    if (!isObject(at) || !Object.hasOwn(at, k)) return undefined;
    at = at[k];
  }
  return at;
}
