import type { Reason } from '../rules/registry';
import type { CatalogDef } from '../catalogs/types';

/**
 * Catalog values real clients send in another shape than spec 2.4, read before the record is
 * validated, each with a named warning (docs/data-contract.md, "Real clients"). The record is never
 * changed in place: a rejection keeps what was sent.
 *
 * - The text of a Python list where the definition has an array of strings (`type_coerced`): the
 *   synthetic data generator sends `str()` of a list, e.g. drug `active_ingredients`
 *   "['Aspirin', 'Caffeine']" (its drug_catalog.py). A Python list literal of string literals becomes
 *   that list. Any other string is still a `type` error: whether "a, b" is one item or two cannot be
 *   known.
 * - User `country` and `language` as ISO codes (`value_format`): the generator sends ISO 3166 alpha-2
 *   (`IN`) and ISO 639-1 (`fr`) where the spec wants full names; a code the platform's ICU data
 *   (Intl.DisplayNames, English) names is read as that name, anything else is kept as sent.
 */
export function applyCatalogQuirks(def: CatalogDef, record: Record<string, unknown>, path: string): { record: Record<string, unknown>; warnings: Reason[] } {
  const warnings: Reason[] = [];
  let out = record;
  const set = (k: string, v: unknown) => {
    if (out === record) out = { ...record };
    out[k] = v;
  };
  for (const [name, field] of Object.entries(def.fields)) {
    const v = record[name];
    if (typeof v !== 'string' || field.type.kind !== 'array' || field.type.items.kind !== 'scalar' || field.type.items.scalar !== 'string') continue;
    const list = parsePythonStringList(v);
    if (list === undefined) continue;
    set(name, list);
    warnings.push({ path: `${path}.${name}`, rule: 'type_coerced', message: `${name} is the text of a list; read as its ${list.length} item(s)` });
  }
  if (def.kind === 'user') {
    const country = isoName(record.country, /^[A-Z]{2}$/, regionNames);
    if (country !== undefined) {
      set('country', country);
      warnings.push({
        path: `${path}.country`,
        rule: 'value_format',
        message: `country ${JSON.stringify(record.country)} is an ISO 3166 code; read as ${country}`,
      });
    }
    const language = isoName(record.language, /^[a-z]{2}$/, languageNames);
    if (language !== undefined) {
      set('language', language);
      warnings.push({
        path: `${path}.language`,
        rule: 'value_format',
        message: `language ${JSON.stringify(record.language)} is an ISO 639-1 code; read as ${language}`,
      });
    }
  }
  return { record: out, warnings };
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function isoName(v: unknown, shape: RegExp, names: Intl.DisplayNames): string | undefined {
  if (typeof v !== 'string' || !shape.test(v)) return undefined;
  let name: string | undefined;
  try {
    name = names.of(v);
  } catch {
    return undefined;
  }
  // `ZZ` and other unassigned codes come back as placeholders or as the code itself.
  return name === undefined || name === v || name === 'Unknown Region' || name === 'Unknown language' ? undefined : name;
}

/**
 * A Python list literal of string literals (`['a', "b's"]`, as `str(list)` prints it: single quotes,
 * or double quotes when the item holds a single quote; backslash escapes), or undefined.
 */
export function parsePythonStringList(text: string): string[] | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  ws();
  if (text[i] !== '[') return undefined;
  i++;
  const items: string[] = [];
  ws();
  if (text[i] === ']') {
    i++;
    ws();
    return i === text.length ? items : undefined;
  }
  for (;;) {
    ws();
    const quote = text[i];
    if (quote !== "'" && quote !== '"') return undefined;
    i++;
    let s = '';
    for (;;) {
      if (i >= text.length) return undefined;
      const c = text[i++] as string;
      if (c === quote) break;
      if (c !== '\\') {
        s += c;
        continue;
      }
      const e = text[i++];
      if (e === undefined) return undefined;
      const simple: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r' };
      if (Object.hasOwn(simple, e)) s += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = text.slice(i, i + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) return undefined;
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) return undefined;
        s += String.fromCodePoint(cp);
        i += len;
      } else return undefined;
    }
    items.push(s);
    ws();
    if (text[i] === ',') {
      i++;
      ws();
      if (text[i] === ']') return undefined; // str(list) never prints a trailing comma
      continue;
    }
    if (text[i] !== ']') return undefined;
    i++;
    ws();
    return i === text.length ? items : undefined;
  }
}
