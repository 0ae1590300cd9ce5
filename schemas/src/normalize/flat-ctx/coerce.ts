import type { Reason } from '../../rules/registry';
import type { FieldType, ObjectDef } from '../../dsl/types';
import { coordinates } from '../../events/shared-objects';
import { isObject } from '@evp/contract';
import { parseEventTime } from '../time';
import { JOIN_SEPARATOR, splitJoined } from './rebuild';
import type { RuleName } from '../../rules/registry';

/**
 * What a flattening client's serialiser does to single values, undone where the definition says what
 * the value is (and only there: a 1 in a DOUBLE stays 1, a string in a STRING stays a string):
 * - a BOOLEAN sent as 1/0 (Swift's NSNumber bridging: `case let num as Int` matches a JSON boolean
 *   before `case let bool as Bool`) → true/false, warning `boolean_as_number`;
 * - an ARRAY of scalars sent as one `", "`-joined string → the list, warning `joined_list`;
 * - an epoch-ms LONG sent as an ISO 8601 string with an offset (the client's models keep these times
 *   as free strings) → epoch ms, warning `time_as_string`;
 * - coordinates sent as `"lat, lon"` (a `[Double]` joined like any array) → `{lat, lon}`, warning
 *   `lat_lon_string`.
 * Anything else is left as sent, for the validator to judge. Returns a new object; nested objects
 * and arrays of objects are walked with their own definitions.
 */
export function coerceToDef(def: ObjectDef, value: Record<string, unknown>, path: string, warnings: Reason[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(def.fields)) {
    if (!Object.hasOwn(value, name)) continue;
    const v = value[name];
    const c = coerceValue(field.type, v, `${path}.${name}`, warnings);
    if (c !== v) {
      out ??= { ...value };
      out[name] = c;
    }
  }
  return out ?? value;
}

function coerceValue(type: FieldType, v: unknown, path: string, warnings: Reason[]): unknown {
  const warn = (rule: RuleName, message: string) => warnings.push({ path, rule, message });
  switch (type.kind) {
    case 'scalar':
      if (type.scalar === 'boolean' && (v === 0 || v === 1)) {
        warn('boolean_as_number', `${v} read as ${v === 1}`);
        return v === 1;
      }
      return v;
    case 'epochMs': {
      if (typeof v !== 'string') return v;
      const ms = parseEventTime(v, undefined);
      if (ms === undefined || ms < 0) return v;
      warn('time_as_string', `${JSON.stringify(v)} read as epoch ms ${ms}`);
      return ms;
    }
    case 'array':
      if (typeof v === 'string' && (type.items.kind === 'scalar' || type.items.kind === 'enum')) {
        warn('joined_list', `a "${JOIN_SEPARATOR}"-joined string; split into a list`);
        return splitJoined(v);
      }
      if (Array.isArray(v) && type.items.kind === 'object') {
        const def = type.items.def;
        let changed = false;
        const items = v.map((item, i) => {
          if (!isObject(item)) return item;
          const c = coerceToDef(def, item, `${path}[${i}]`, warnings);
          changed ||= c !== item;
          return c;
        });
        return changed ? items : v;
      }
      return v;
    case 'object':
      if (type.def === coordinates && typeof v === 'string') {
        const parts = v.split(',').map((p) => Number(p.trim()));
        if (parts.length !== 2 || parts.some((n) => v.trim() === '' || !Number.isFinite(n))) return v;
        warn('lat_lon_string', `${JSON.stringify(v)} read as {lat, lon}`);
        return { lat: parts[0], lon: parts[1] };
      }
      return isObject(v) ? coerceToDef(type.def, v, path, warnings) : v;
    default:
      return v;
  }
}
