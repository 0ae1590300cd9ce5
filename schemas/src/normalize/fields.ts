import type { Reason } from '../rules/registry';

/** Small readers that collect every problem instead of stopping at the first. */
export class FieldReader {
  readonly reasons: Reason[] = [];
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly path: string,
  ) {}

  /** Reads the first present spelling; reports under the first name. */
  string(names: string[], required = true): string | undefined {
    // A loop, not names.find(closure): this runs for several fields of every event.
    let key: string | undefined;
    for (const n of names) {
      if (this.obj[n] !== undefined && this.obj[n] !== null) {
        key = n;
        break;
      }
    }
    if (key === undefined) {
      if (required) this.reasons.push({ path: `${this.path}.${names[0]}`, rule: 'required', message: `${names.join(' or ')} is required` });
      return undefined;
    }
    const v = this.obj[key];
    if (typeof v !== 'string' || (required && v.length === 0)) {
      this.reasons.push({ path: `${this.path}.${key}`, rule: 'type', message: `${key} must be a non-empty string` });
      return undefined;
    }
    return v;
  }

  int(name: string): number | undefined {
    const v = this.obj[name];
    if (v === undefined || v === null) {
      this.reasons.push({ path: `${this.path}.${name}`, rule: 'required', message: `${name} is required` });
      return undefined;
    }
    if (!Number.isInteger(v)) {
      this.reasons.push({ path: `${this.path}.${name}`, rule: 'type', message: `${name} must be an integer` });
      return undefined;
    }
    return v as number;
  }

  object(name: string): Record<string, unknown> | undefined {
    const v = this.obj[name];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      this.reasons.push({
        path: `${this.path}.${name}`,
        rule: v === undefined || v === null ? 'required' : 'type',
        message: `${name} must be an object`,
      });
      return undefined;
    }
    return v as Record<string, unknown>;
  }
}

export function pickUnknown(obj: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys, not entries: no [key, value] pair allocated per key of every event.
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!known.includes(k)) out[k] = obj[k];
  }
  return out;
}
