import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ProgramMissingError, programListPath, readProgramList, requireProgram, spawnedNames } from '@evp/testkit';

const root = join(__dirname, '../..');
const SKIP = new Set(['node_modules', '.git', '.local', '.turbo', 'dist', 'coverage']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(e.name) ? [path] : [];
  });
}

describe('deploy/programs.txt: every program the project runs, with its Debian package', () => {
  const list = readProgramList();

  it('names each program once, each with a package and who runs it', () => {
    const names = list.map((p) => p.program);
    expect(new Set(names).size).toBe(names.length);
    for (const p of list) {
      expect(p.package).toMatch(/^(machine|[a-z0-9][a-z0-9.+-]+)$/);
      expect(p.usedBy).not.toBe('');
    }
    // The programs a new machine lacked before the list existed (issue 34) are on it.
    expect(
      Object.fromEntries(list.filter((p) => ['redis-sentinel', 'nginx', 'chromium', 'java', 'mvn'].includes(p.program)).map((p) => [p.program, p.package])),
    ).toEqual({
      'redis-sentinel': 'redis-sentinel',
      nginx: 'nginx',
      chromium: 'chromium',
      java: 'openjdk-17-jdk-headless',
      mvn: 'maven',
    });
  });

  it('is what .ci/run installs from', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(ci).toContain('deploy/programs.txt');
    expect(relative(root, programListPath)).toBe('deploy/programs.txt');
  });

  it('holds every program that code starts by a literal name', () => {
    const listed = new Set(list.map((p) => p.program));
    // This file's own fixtures name programs that do not exist, on purpose.
    const unlisted = sourceFiles(root)
      .filter((file) => file !== __filename)
      .flatMap((file) =>
        spawnedNames(readFileSync(file, 'utf8'))
          .filter((s) => !listed.has(s.program))
          .map((s) => `${relative(root, file)}:${s.line} starts ${s.program}`),
      );
    expect(unlisted).toEqual([]);
  });
});

describe('spawnedNames: the literal program names a source starts', () => {
  it('finds each shape of starting a program, and nothing else', () => {
    const text = [
      "spawn('frobnicate', ['-x']);",
      'cp.spawnSync("zork", []);',
      "execFileSync('git', ['status']);",
      "execSync('tar -xf a.tgz');",
      "startChild('store', 'redis-server', ['--port', '1'], opts);",
      "this.launch('sentinel-0', 'redis-sentinel', [conf], port);",
      "requireProgram('nginx');",
      "chromium.launch({ executablePath: '/usr/bin/chromium' });",
      // Not programs: a regex's exec, a variable, the running Node itself, a template with a placeholder.
      "/a/.exec('text'); spawn(cmd, args); spawn(process.execPath, []); spawn(`${bin}/x`, []);",
    ].join('\n');
    expect(spawnedNames(text)).toEqual([
      { program: 'frobnicate', line: 1 },
      { program: 'zork', line: 2 },
      { program: 'git', line: 3 },
      { program: 'tar', line: 4 },
      { program: 'redis-server', line: 5 },
      { program: 'redis-sentinel', line: 6 },
      { program: 'nginx', line: 7 },
      { program: 'chromium', line: 8 },
    ]);
  });
});

describe('requireProgram', () => {
  const list = [
    { program: 'node', package: 'machine', usedBy: 'tests' },
    { program: 'evp-no-such-program', package: 'evp-no-such-package', usedBy: 'tests' },
  ];

  it('answers the absolute path of a listed program that is installed', () => {
    expect(requireProgram('node', { list, path: process.env.PATH })).toMatch(/^\/.*\/node$/);
  });

  it('fails at once, naming the Debian package, when a listed program is missing', () => {
    expect(() => requireProgram('evp-no-such-program', { list, path: '/nonexistent' })).toThrow(ProgramMissingError);
    expect(() => requireProgram('evp-no-such-program', { list, path: '/nonexistent' })).toThrow(
      'evp-no-such-program is not installed: apt-get install evp-no-such-package (deploy/programs.txt lists it; .ci/run installs it)',
    );
  });

  it('refuses a program that is not on the list, installed or not', () => {
    expect(() => requireProgram('sh', { list })).toThrow('sh is not in deploy/programs.txt: list it with the Debian package that provides it');
  });
});
