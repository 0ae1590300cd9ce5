import type { EventDef, FieldType } from '../dsl/types';
import type { CatalogSource } from './sources';

/** What both TypeScript generators (the server types, the web library's types) write alike. */
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

export function tsType(type: FieldType): string {
  switch (type.kind) {
    case 'scalar':
      return type.scalar === 'string' ? 'string' : type.scalar === 'boolean' ? 'boolean' : 'number';
    case 'epochMs':
      return 'number';
    case 'enum':
      return type.symbols.length === 0 ? 'never' : type.symbols.map((s) => JSON.stringify(s)).join(' | ');
    case 'any':
      return 'unknown';
    case 'array': {
      const inner = tsType(type.items);
      return /[|&]/.test(inner) ? `Array<${inner}>` : `${inner}[]`;
    }
    case 'map':
      return `Record<string, ${tsType(type.values)}>`;
    case 'object':
      return type.def.name;
  }
}

export const jsdocLine = (s: string) => s.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ');

/**
 * The lookup types both generators end with: event name → props, block → event names, catalog kind →
 * record. `what` names the props and the record in the doc comments (validated, or as a client sends them).
 */
export function lookupMaps(
  blocks: readonly { block: string; events: readonly EventDef[] }[],
  catalogs: readonly CatalogSource[],
  what: { props: string; record: string },
): string[] {
  const events = blocks.flatMap((b) => b.events);
  return [
    `/** Event name → ${what.props}. */`,
    'export interface EventPropsByName {',
    ...events.map((e) => `  ${key(e.event)}: ${e.name};`),
    '}',
    '',
    'export type EventName = keyof EventPropsByName;',
    '',
    '/** Block → the names of its events. */',
    'export interface EventNamesByBlock {',
    ...blocks.map((b) => `  ${key(b.block)}: ${b.events.length === 0 ? 'never' : b.events.map((e) => JSON.stringify(e.event)).join(' | ')};`),
    '}',
    '',
    `/** Catalog kind → ${what.record}. */`,
    'export interface CatalogRecordByKind {',
    ...catalogs.map((c) => `  ${key(c.kind)}: ${c.def.name};`),
    '}',
  ];
}
