import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { readProgramList, type ListedProgram } from './list';

/**
 * Thrown when a listed program is not installed. Its message names the Debian package, so a test on a
 * new machine fails at once with what to install instead of timing out in a hook while a spawn's
 * 'error' event goes unheard.
 */
export class ProgramMissingError extends Error {
  readonly retriable = false;
  constructor(readonly listed: ListedProgram) {
    super(
      listed.package === 'machine'
        ? `${listed.program} is not on PATH; the machine should provide it (deploy/programs.txt)`
        : `${listed.program} is not installed: apt-get install ${listed.package} (deploy/programs.txt lists it; .ci/run installs it)`,
    );
    this.name = 'ProgramMissingError';
  }
}

// Debian puts daemons such as nginx in sbin, which a non-root PATH may lack.
const EXTRA_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** The absolute path of `name` on PATH (or an sbin directory), or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of [...path.split(delimiter).filter(Boolean), ...EXTRA_DIRS]) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface RequireProgramOptions {
  list?: readonly ListedProgram[];
  path?: string;
}

/**
 * The absolute path of a program of deploy/programs.txt, to pass to spawn or playwright. Throws
 * ProgramMissingError when it is not installed, and a plain Error when the name is not on the list
 * (a program the project runs must be listed, so that .ci/run installs it on a new machine).
 */
export function requireProgram(name: string, opts: RequireProgramOptions = {}): string {
  const listed = (opts.list ?? readProgramList()).find((p) => p.program === name);
  if (!listed) throw new Error(`${name} is not in deploy/programs.txt: list it with the Debian package that provides it`);
  const found = findOnPath(name, opts.path);
  if (!found) throw new ProgramMissingError(listed);
  return found;
}
