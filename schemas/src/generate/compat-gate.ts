import { execFileSync } from 'node:child_process';
import { compatibilityProblems, parseAvroSchema } from '@evp/registry';
import type { AvroSchema } from '../avro/derive';
import { AVRO_DIR, avscPath, derivedTopicSchemas } from './avro-files';
import { REPO_ROOT } from './generate';

/**
 * The compatibility gate: every schema committed at a baseline git ref must be readable by the schema
 * the definitions derive now (BACKWARD, Confluent's default and what the registry enforces at
 * register time). Catching it here means an incompatible change fails CI instead of failing the
 * validator's start-up registration in production.
 *
 * Note on Avro semantics: BACKWARD means "the new schema reads old data". Changing a type (int →
 * string) or adding a field without a default fails; deleting a field does not (the reader ignores
 * it), exactly as the registry would judge.
 */

export interface GateFinding {
  ref: string;
  path: string;
  problems: string[];
}

/** Why `derived` (reader) cannot read data written with the previously committed schema text (writer). */
export function backwardProblems(previousText: string, derived: AvroSchema): string[] {
  let previous;
  try {
    previous = parseAvroSchema(previousText);
  } catch (err) {
    return [`the committed schema does not parse: ${(err as Error).message}`];
  }
  return compatibilityProblems(parseAvroSchema(derived), [previous], 'BACKWARD');
}

export class GitUnavailableError extends Error {
  override name = 'GitUnavailableError';
}

function git(args: string[], cwd: string): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new GitUnavailableError(`git ${args.join(' ')} failed in ${cwd}: ${(e.stderr || e.message).trim()}`);
  }
}

function gitOk(args: string[], cwd: string): boolean {
  try {
    execFileSync('git', args, { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Refs to compare against. HEAD covers a developer's uncommitted change; HEAD~1 covers CI, where the
 * checkout IS the new commit (so HEAD alone would compare the change with itself). A shallow clone
 * without the parent cannot be judged, so it fails loudly instead of passing by accident.
 */
export function baselineRefs(root = REPO_ROOT): string[] {
  if (git(['rev-parse', '--is-inside-work-tree'], root).trim() !== 'true') {
    throw new GitUnavailableError(`${root} is not inside a git work tree; the compatibility gate needs git history`);
  }
  if (!gitOk(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], root)) return []; // no commit yet
  if (gitOk(['rev-parse', '--verify', '--quiet', 'HEAD~1^{commit}'], root)) return ['HEAD', 'HEAD~1'];
  if (git(['rev-parse', '--is-shallow-repository'], root).trim() === 'true') {
    throw new GitUnavailableError('shallow clone: HEAD~1 is missing; fetch full history (actions/checkout fetch-depth: 0)');
  }
  return ['HEAD']; // the root commit
}

/** Repository-relative path → schema text of every .avsc committed at `ref` (empty before the first). */
function committedAvro(ref: string, root = REPO_ROOT): Map<string, string> {
  const out = new Map<string, string>();
  // `./`-relative paths keep this correct even if the monorepo sits inside a larger repository.
  const listing = git(['ls-tree', '-r', '--name-only', ref, '--', `./${AVRO_DIR}/`], root);
  const top = git(['rev-parse', '--show-prefix'], root).trim();
  for (const line of listing.split('\n').filter((l) => l.endsWith('.avsc'))) {
    const rel = top && line.startsWith(top) ? line.slice(top.length) : line;
    out.set(rel, git(['show', `${ref}:./${rel}`], root));
  }
  return out;
}

/** Checks every committed schema at every baseline ref against the derived schemas. */
export function runCompatibilityGate(
  refs: readonly string[] = baselineRefs(),
  root = REPO_ROOT,
  derived: Map<string, AvroSchema> = derivedTopicSchemas(),
): { checked: number; findings: GateFinding[] } {
  const byPath = new Map([...derived].map(([topic, schema]) => [avscPath(topic), schema]));
  const findings: GateFinding[] = [];
  let checked = 0;
  for (const ref of refs) {
    for (const [path, text] of committedAvro(ref, root)) {
      checked += 1;
      const now = byPath.get(path);
      const problems =
        now === undefined ? ['the topic is no longer derived from the definitions (its producers and consumers would break)'] : backwardProblems(text, now);
      if (problems.length > 0) findings.push({ ref, path, problems });
    }
  }
  return { checked, findings };
}
