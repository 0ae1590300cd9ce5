import type { RejectionReason } from '@evp/core';

/** Small readers that collect every problem instead of stopping at the first. */
export class FieldReader {
  readonly errors: RejectionReason[] = [];
  constructor(private readonly obj: Record<string, unknown>, private readonly path: string) {}

  /** Reads the first present spelling; reports under the first name. */
  string(names: string[], required = true): string | undefined {
    const key = names.find((n) => this.obj[n] !== undefined && this.obj[n] !== null);
    if (key === undefined) {
      if (required) this.errors.push({ path: `${this.path}.${names[0]}`, rule: 'required', message: `${names.join(' or ')} is required` });
      return undefined;
    }
    const v = this.obj[key];
    if (typeof v !== 'string' || (required && v.length === 0)) {
      this.errors.push({ path: `${this.path}.${key}`, rule: 'type', message: `${key} must be a non-empty string` });
      return undefined;
    }
    return v;
  }

  int(name: string): number | undefined {
    const v = this.obj[name];
    if (v === undefined || v === null) {
      this.errors.push({ path: `${this.path}.${name}`, rule: 'required', message: `${name} is required` });
      return undefined;
    }
    if (!Number.isInteger(v)) {
      this.errors.push({ path: `${this.path}.${name}`, rule: 'type', message: `${name} must be an integer` });
      return undefined;
    }
    return v as number;
  }

  object(name: string): Record<string, unknown> | undefined {
    const v = this.obj[name];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      this.errors.push({
        path: `${this.path}.${name}`,
        rule: v === undefined || v === null ? 'required' : 'type',
        message: `${name} must be an object`,
      });
      return undefined;
    }
    return v as Record<string, unknown>;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function pickUnknown(obj: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!known.includes(k)) out[k] = v;
  return out;
}
