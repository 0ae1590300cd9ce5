import { CATALOG_KINDS } from '@evp/core';
import type { FieldType } from '@evp/schemas';
import type { Variable } from 'liquidjs';
import { article, catalogFields, catalogKind, contractEvent, profileField, profileFieldNames, valueClass } from '@evp/segment-language';

/**
 * The variables a campaign's templates may read, checked against the data contract when the
 * campaign is saved: `user.<profile field>`, `event.<property>` (event triggers only),
 * `catalog.<kind>[<id>].<field>` and `trigger.<kind|time|event>`. Paths go on through the
 * contract's types (object fields, array elements by index or `first`/`last`, `size`); inside a map
 * or an `any` value the contract says nothing, so nothing further is checked.
 */

/** What the templates of one campaign may read beyond `user`, `catalog` and `trigger`. */
export interface TemplateScope {
  /** The canonical name of the event an event trigger fires on; absent for other triggers. */
  event?: string;
}

type Segment = string | number | Variable;

const STRING: FieldType = { kind: 'scalar', scalar: 'string' };
const INT: FieldType = { kind: 'scalar', scalar: 'int' };
const TEMPLATE_ROOTS = ['user', 'event', 'catalog', 'trigger'] as const;

/** `a.b[0][c.d]` as Liquid would write it. */
function show(segments: readonly Segment[]): string {
  return segments
    .map((s, i) =>
      typeof s === 'number'
        ? `[${s}]`
        : typeof s === 'string'
          ? i === 0
            ? s
            : /^[A-Za-z_][\w-]*$/.test(s)
              ? `.${s}`
              : `[${JSON.stringify(s)}]`
          : `[${s.toString()}]`,
    )
    .join('');
}

/** The rest of a path through a contract type; a message when a step does not exist. */
function walk(type: FieldType, segments: readonly Segment[], done: readonly Segment[]): string | undefined {
  let here = type;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as Segment;
    const before = show(done.concat(segments.slice(0, i)));
    switch (here.kind) {
      case 'any':
        return undefined;
      case 'map':
        if (seg === 'size') return undefined;
        here = here.values;
        break;
      case 'array':
        if (seg === 'size') here = INT;
        else if (typeof seg === 'string' && seg !== 'first' && seg !== 'last') {
          return `${before} is an array: read its elements with [index], first or last (or its size), not ${seg}`;
        } else here = here.items;
        break;
      case 'object': {
        if (typeof seg !== 'string') return `${before} is an object: read its fields by name, not [${seg.toString()}]`;
        const field = Object.hasOwn(here.def.fields, seg) ? here.def.fields[seg] : undefined;
        if (!field) return `${before}.${seg} is not in the data contract: ${before} has ${Object.keys(here.def.fields).join(', ')}`;
        here = field.type;
        break;
      }
      default:
        if (seg === 'size' && (valueClass(here) === 'string' || valueClass(here) === 'enum')) here = INT;
        else return `${before} is ${article(valueClass(here))}: it has no ${typeof seg === 'string' ? `property ${seg}` : 'elements'}`;
    }
  }
  return undefined;
}

/** A template variable (Liquid's static analysis of a global) → why it does not exist, or undefined. */
export function checkVariable(segments: readonly Segment[], scope: TemplateScope): string | undefined {
  const [root, first, ...rest] = segments;
  switch (root) {
    case 'user': {
      if (first === undefined) return undefined;
      const label = show([root, first]);
      if (first === 'id') return walk(STRING, rest, [root, first]);
      const field = typeof first === 'string' ? profileField(first) : undefined;
      if (!field) return `${label} is not a user variable: user.id or one of ${profileFieldNames().join(', ')}`;
      return walk(field.type, rest, [root, first]);
    }
    case 'event': {
      const event = scope.event === undefined ? undefined : contractEvent(scope.event);
      if (!event) return 'event is set only when the trigger is an event: this campaign has no triggering event';
      return walk({ kind: 'object', def: event.def }, segments.slice(1), [root]);
    }
    case 'catalog': {
      const kind = typeof first === 'string' ? catalogKind(first) : undefined;
      if (!kind) return `${show(segments.slice(0, 2))}: read a catalog as catalog.KIND[ID].FIELD, KIND one of ${CATALOG_KINDS.join(', ')}`;
      if (rest.length === 0) return `catalog.${kind} needs an id: catalog.${kind}[ID].FIELD`;
      return walk({ kind: 'object', def: catalogFields(kind) }, rest.slice(1), segments.slice(0, 3));
    }
    case 'trigger': {
      if (first === undefined) return undefined;
      const names = scope.event === undefined ? ['kind', 'time'] : ['kind', 'time', 'event'];
      if (typeof first !== 'string' || !names.includes(first)) return `${show([root, first])} is not a trigger variable: trigger.${names.join(', trigger.')}`;
      return walk(STRING, rest, [root, first]);
    }
    default:
      return `${show([root as Segment])} is not a variable: templates read ${TEMPLATE_ROOTS.join(', ')} (or what assign, capture and for define)`;
  }
}
