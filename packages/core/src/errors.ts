/**
 * Exceptions are for infrastructure failures only; per-message outcomes are values (see outcome.ts).
 * Every infrastructure error says whether retrying can help, so callers never guess from names.
 */
export class InfraError extends Error {
  readonly retriable: boolean;
  readonly dependency: string;

  constructor(dependency: string, message: string, opts: { retriable: boolean; cause?: unknown }) {
    super(`${dependency}: ${message}`, { cause: opts.cause });
    this.name = 'InfraError';
    this.dependency = dependency;
    this.retriable = opts.retriable;
  }
}

export function isRetriable(err: unknown): boolean {
  return err instanceof InfraError ? err.retriable : false;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
