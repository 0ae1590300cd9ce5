import type { FieldType } from '../dsl/types';

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
