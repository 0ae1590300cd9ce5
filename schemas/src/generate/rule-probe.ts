import type { FieldType, ObjectDef, RuleProblem } from '../dsl/types';

/**
 * Cross-field rules are functions, so their names and messages are only known by running them. The
 * reference page runs every rule of a definition on a fixed, deterministic set of probe values (every
 * value of each enum/boolean field, over a complete and an empty object, with each field removed in
 * turn and each nested object emptied) and lists the distinct problems it reports. A rule that never
 * fires on the probes is still counted, so the page never hides that a rule exists.
 */
export interface ProbedRules {
  problems: RuleProblem[];
  /** Rules that reported nothing on any probe. */
  silent: number;
}

function sample(type: FieldType, depth: number): unknown {
  switch (type.kind) {
    case 'scalar':
      return type.scalar === 'string' ? 'x' : type.scalar === 'boolean' ? true : 1;
    case 'epochMs':
      return 0;
    case 'enum':
      return type.symbols[0];
    case 'any':
      return 'x';
    case 'array':
      return depth > 4 ? [] : [sample(type.items, depth + 1)];
    case 'map':
      return depth > 4 ? {} : { k: sample(type.values, depth + 1) };
    case 'object':
      return depth > 4 ? {} : sampleObject(type.def, depth + 1);
  }
}

function sampleObject(def: ObjectDef, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [n, f] of Object.entries(def.fields)) out[n] = f.default ?? sample(f.type, depth);
  return out;
}

function probes(def: ObjectDef): Record<string, unknown>[] {
  const full = sampleObject(def);
  const bases: Record<string, unknown>[] = [full, {}];
  const names = Object.keys(def.fields);
  for (const n of names) {
    const { [n]: _removed, ...rest } = full;
    bases.push(rest);
    const t = def.fields[n]!.type;
    if (t.kind === 'object') bases.push({ ...full, [n]: {} });
    if (t.kind === 'array' && t.items.kind === 'object') bases.push({ ...full, [n]: [{}] });
  }
  const variants: Record<string, unknown>[] = [...bases];
  for (const n of names) {
    const t = def.fields[n]!.type;
    const values = t.kind === 'enum' ? [...t.symbols] : t.kind === 'scalar' && t.scalar === 'boolean' ? [true, false] : [];
    for (const v of values) for (const b of bases) variants.push({ ...b, [n]: v });
  }
  return variants;
}

export function probeRules(def: ObjectDef): ProbedRules {
  const rules = def.rules ?? [];
  if (rules.length === 0) return { problems: [], silent: 0 };
  const seen = new Map<string, RuleProblem>();
  let silent = 0;
  const inputs = probes(def);
  for (const rule of rules) {
    let fired = false;
    for (const input of inputs) {
      let found: RuleProblem[];
      try {
        found = rule(input);
      } catch {
        continue;
      }
      for (const p of found) {
        fired = true;
        const k = `${p.rule}\u0000${p.path}\u0000${p.message}`;
        if (!seen.has(k)) seen.set(k, p);
      }
    }
    if (!fired) silent += 1;
  }
  const problems = [...seen.values()].sort((a, b) => (a.rule + a.path + a.message < b.rule + b.path + b.message ? -1 : 1));
  return { problems, silent };
}
