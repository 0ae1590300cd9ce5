import type { Type } from 'avsc';

/** Confluent's compatibility levels, spelled as its REST API spells them. */
export const COMPATIBILITY_LEVELS = ['NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE'] as const;

export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

/** Confluent's default: consumers upgraded first can still read everything already written. */
export const DEFAULT_COMPATIBILITY: CompatibilityLevel = 'BACKWARD';

/** The REST API accepts levels in any case; everything else here uses the upper-case spelling. */
export function parseCompatibilityLevel(value: unknown): CompatibilityLevel | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return (COMPATIBILITY_LEVELS as readonly string[]).includes(upper) ? (upper as CompatibilityLevel) : undefined;
}

/**
 * Why `reader` cannot decode data written with `writer`, or undefined when it can. This is Avro
 * schema resolution itself (avsc builds the resolver a consumer would use), so "compatible" here
 * means exactly "decoding will work", not an approximation of it.
 */
export function resolutionProblem(reader: Type, writer: Type): string | undefined {
  try {
    reader.createResolver(writer);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Problems that keep `candidate` from joining a subject whose live schemas are `previous`
 * (oldest first) under `level`; an empty list means compatible.
 * BACKWARD: the new schema reads old data. FORWARD: old schemas read new data. FULL: both.
 * The non-transitive levels only look at the latest schema, as Confluent does.
 */
export function compatibilityProblems(candidate: Type, previous: readonly Type[], level: CompatibilityLevel): string[] {
  if (level === 'NONE' || previous.length === 0) return [];
  const transitive = level.endsWith('_TRANSITIVE');
  const against = transitive ? previous : previous.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const problems: string[] = [];
  against.forEach((old, i) => {
    const which = transitive ? `schema #${i + 1} of ${against.length}` : 'the latest schema';
    if (backward) {
      const problem = resolutionProblem(candidate, old);
      if (problem) problems.push(`new schema cannot read data written with ${which} (${level}): ${problem}`);
    }
    if (forward) {
      const problem = resolutionProblem(old, candidate);
      if (problem) problems.push(`${which} cannot read data written with the new schema (${level}): ${problem}`);
    }
  });
  return problems;
}
