import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export interface StackEndpoints {
  KAFKA_BROKERS: string;
  REDIS_URL: string;
  SCHEMA_REGISTRY_URL: string;
}

const KEYS = ['KAFKA_BROKERS', 'REDIS_URL', 'SCHEMA_REGISTRY_URL'] as const;
export const repoRoot = resolve(__dirname, '../../../..');

/**
 * Endpoints of the real stack: from the environment when all are given (CI, a developer's own
 * services), otherwise from `deploy/local/stack.sh up`, which starts what is missing and reuses
 * what runs.
 */
export function stackEndpoints(env: Record<string, string | undefined> = process.env): StackEndpoints {
  if (KEYS.every((k) => env[k])) return Object.fromEntries(KEYS.map((k) => [k, env[k] as string])) as unknown as StackEndpoints;
  const script = resolve(repoRoot, 'deploy/local/stack.sh');
  const out = execFileSync('bash', [script, 'up'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 });
  return parseStackEnv(out);
}

/** The endpoints in what `deploy/local/stack.sh up` (or `env`) prints: KEY=VALUE lines. */
export function parseStackEnv(out: string): StackEndpoints {
  const parsed: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) parsed[m[1] as string] = m[2] as string;
  }
  const missing = KEYS.filter((k) => !parsed[k]);
  if (missing.length > 0) throw new Error(`deploy/local/stack.sh did not print ${missing.join(', ')}`);
  return parsed as unknown as StackEndpoints;
}
