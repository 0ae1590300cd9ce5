import type { ErrorBody } from '@evp/segmenter';

/** One problem of a refused definition, at its path. */
export interface Problem {
  path: string;
  message: string;
}

/**
 * The problems a refusal lists: `details.issues` of invalid_definition (every problem at its path),
 * else the error itself (`$` when it names no path).
 */
export function problemsOf(body: Partial<ErrorBody>): Problem[] {
  const error = body.error;
  if (!error) return [];
  const details = error.details as { issues?: { path?: string; message: string }[] } | undefined;
  const issues = details?.issues ?? [error];
  return issues.map((p) => ({ path: p.path || '$', message: p.message }));
}

/** "3 users match now", "1 user matches now". */
export const matchWords = (count: number): string => `${count}${count === 1 ? ' user matches now' : ' users match now'}`;
