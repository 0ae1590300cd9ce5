import { basename } from 'node:path';

/** A program named by a string literal where code starts a process. */
export interface SpawnedName {
  program: string;
  line: number;
}

// The shapes in which this repository starts programs, each with the literal that names the program:
// child_process calls (program first), the fault harness's and the Redis group's starters (program
// second), the testkit's own check, and playwright's browser path.
const SHAPES: readonly RegExp[] = [
  /(?<![\w$])(?:spawn|spawnSync|execFile|execFileSync|fork)\(\s*(['"`])([^'"`$]+)\1/g,
  /(?<![\w$.])(?:execSync|exec)\(\s*(['"`])([^\s'"`$]+)/g,
  /(?:(?<![\w$])startChild|\.launch)\(\s*[^,()]+,\s*(['"`])([^'"`$]+)\1/g,
  /(?<![\w$])requireProgram\(\s*(['"`])([^'"`$]+)\1/g,
  /\bexecutablePath:\s*(['"`])([^'"`$]+)\1/g,
];

/** Every program a source text starts by a literal name (a path counts by its last part). */
export function spawnedNames(text: string): SpawnedName[] {
  const found: SpawnedName[] = [];
  for (const shape of SHAPES) {
    for (const m of text.matchAll(shape)) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ program: basename(m[2] as string), line });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}
