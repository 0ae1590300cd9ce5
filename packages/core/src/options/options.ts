import type { z } from 'zod';

/**
 * One setting of a part, written once: its meaning, its default, and (when an operator may change
 * it) the environment variable that sets it with its parser. The part's programmatic defaults, its
 * config schema's variables and its documented table all derive from the one table (in the manner
 * of Temporal's worker options: each option with its default and meaning).
 */
export interface Option<T> {
  /** What it does, why one would change it: the docs' text. */
  doc: string;
  default: T;
  /** The variable that sets it; none: set in code only (tests, tools). */
  env?: string;
  /** How the variable's text becomes a value (and which values are refused). Needed with `env`. */
  schema?: z.ZodType<T, z.ZodTypeDef, unknown>;
  /**
   * What an unset variable stands for, when the service's default is not the code's (e.g. the
   * validator's workers: one per CPU in the service, none in tests). Read by `schema`.
   */
  envDefault?: string;
}

/** A part's config, one option per field. */
export type Options<C> = { [K in keyof C]: Option<C[K]> };

/** The config an options table describes: each field the type of its option. */
export type ConfigOf<O> = { [K in keyof O]: O[K] extends Option<infer T> ? T : never };

/** An option set in code only. */
export const fixedOption = <T>(d: T, doc: string): Option<T> => ({ default: d, doc });

/** An option set by the variable `E`. */
export type EnvOption<T, E extends string> = Option<T> & { env: E; schema: z.ZodType<T, z.ZodTypeDef, unknown> };

/** An option an environment variable sets (unset: the default, or what `envDefault` reads as). */
export const envOption = <T, E extends string>(
  env: E,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  d: T,
  doc: string,
  envDefault?: string,
): EnvOption<T, E> => ({
  env,
  schema,
  default: d,
  doc,
  ...(envDefault === undefined ? {} : { envDefault }),
});

/** Every option's default: the part's config when nothing is given. */
export function defaultsOf<C>(options: Options<C>): C {
  const out: Partial<C> = {};
  for (const key of Object.keys(options) as (keyof C)[]) out[key] = options[key].default;
  return out as C;
}

/** A part's options over its defaults: what the part runs with. */
export const withDefaults = <C>(options: Options<C>, given: Partial<C> | undefined): C => ({ ...defaultsOf(options), ...given });

const envEntries = <C>(options: Options<C>) =>
  (Object.keys(options) as (keyof C)[]).flatMap((key) => {
    const o = options[key];
    return o.env !== undefined && o.schema !== undefined ? [{ key, env: o.env, schema: o.schema, default: o.default, envDefault: o.envDefault }] : [];
  });

/** The zod fields of a table's variables, by variable name: each parses to its option's type. */
export type EnvShapeOf<O> = {
  [K in keyof O as O[K] extends { env: infer E extends string } ? E : never]: z.ZodType<O[K] extends Option<infer T> ? T : never, z.ZodTypeDef, unknown>;
};

/** The zod fields of the options' variables, for a service's config schema; an unset variable reads as the default. */
export function envShapeOf<O extends Options<ConfigOf<O>>>(options: O): EnvShapeOf<O> {
  const shape: Record<string, z.ZodType<unknown, z.ZodTypeDef, unknown>> = {};
  for (const e of envEntries<ConfigOf<O>>(options)) {
    // An unset variable is the default as a value, or its envDefault text parsed like a set one.
    shape[e.env] =
      e.envDefault === undefined
        ? e.schema.optional().transform((v) => (v === undefined ? e.default : v))
        : e.schema.optional().transform((v) => (v === undefined ? e.schema.parse(e.envDefault) : v));
  }
  return shape as EnvShapeOf<O>;
}

/** The options a parsed environment sets (every option with a variable), by field. */
export function fromEnv<C>(options: Options<C>, parsed: Readonly<Record<string, unknown>>): Partial<C> {
  const out: Partial<C> = {};
  for (const e of envEntries(options)) out[e.key] = parsed[e.env] as C[keyof C];
  return out;
}

/** A default as the docs write it: text in code quotes, the rest as JSON would. */
const shown = (v: unknown) => (typeof v === 'string' ? (v === '' ? '(empty)' : `\`${v}\``) : String(v));

/** The options as a Markdown table: variable (or field, when code sets it), default, meaning. */
export function optionsTable<C>(options: Options<C>): string {
  const rows = (Object.keys(options) as (keyof C & string)[]).map((key) => {
    const o = options[key];
    const name = o.env === undefined ? `\`${key}\` (code only)` : `\`${o.env}\``;
    const d = o.envDefault === undefined ? shown(o.default) : `\`${o.envDefault}\` (in code: ${shown(o.default)})`;
    return `| ${name} | ${d} | ${o.doc.replace(/\|/g, '\\|')} |`;
  });
  return ['| Option | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
