import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** One line of deploy/programs.txt: a program the project runs and the Debian package that provides it. */
export interface ListedProgram {
  program: string;
  /** A Debian package name, or `machine` for what the machine itself provides (Node.js and npm). */
  package: string;
  usedBy: string;
}

export const programListPath = resolve(__dirname, '../../../../deploy/programs.txt');

/** Parses the list's text: `program package who-runs-it…` per line, `#` comments and blank lines skipped. */
export function parseProgramList(text: string): ListedProgram[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [program = '', pkg = '', ...rest] = line.split(/\s+/);
      return { program, package: pkg, usedBy: rest.join(' ') };
    });
}

export const readProgramList = (path = programListPath): ListedProgram[] => parseProgramList(readFileSync(path, 'utf8'));
