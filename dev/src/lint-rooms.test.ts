import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '../..');
const lint = (dir: string) => spawnSync(process.execPath, [join(root, 'scripts/lint.js'), dir], { cwd: dir, encoding: 'utf8' });

/** A service tree in a temporary directory (scripts/lint.js knows a service by its parent folder `services`). */
function service(files: Record<string, string>): { dir: string; remove(): void } {
  const base = mkdtempSync(join(tmpdir(), 'lint-rooms-'));
  const dir = join(base, 'services', 'svc');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return { dir, remove: () => rmSync(base, { recursive: true, force: true }) };
}

describe('scripts/lint.js: a service room is imported only through its index.ts', () => {
  it('names each import past another room index, and production imports of testing/, and exits 1', () => {
    const tree = service({
      'src/sink/index.ts': "export * from './sink';\n",
      'src/sink/sink.ts': 'export const sink = 1;\n',
      'src/sink/rows.ts': 'export const rows = 1;\n',
      'src/segments/index.ts': "export { engine } from './engine';\n",
      // Allowed: its own room's files, another room's index.
      'src/segments/engine.ts': "import { rows } from '../sink';\nimport { sink } from '../sink/index';\nexport const engine = rows + sink;\n",
      // Past the sink's index, from a room, a nested file and the root.
      'src/segments/work.ts': "import { rows } from '../sink/rows';\nexport const work = rows;\n",
      'src/segments/deep/leaf.ts': "import type { sink } from '../../sink/sink';\nexport type Leaf = typeof sink;\n",
      'src/main.ts': "import { engine } from './segments/engine';\nvoid engine;\n",
      'src/testing/index.ts': 'export const fixture = 1;\n',
      // A test may import testing/ (through its index); production code may not.
      'src/segments/engine.test.ts': "import { fixture } from '../testing';\nvoid fixture;\n",
      'src/segments/seed.ts': "import { fixture } from '../testing';\nexport const seed = fixture;\n",
    });
    try {
      const result = lint(tree.dir);
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n').sort()).toEqual([
        "src/main.ts: imports ./segments/engine past the segments/ room's index.ts (import './segments')",
        "src/segments/deep/leaf.ts: imports ../../sink/sink past the sink/ room's index.ts (import '../../sink')",
        'src/segments/seed.ts: production code imports the testing/ room',
        "src/segments/work.ts: imports ../sink/rows past the sink/ room's index.ts (import '../sink')",
      ]);
    } finally {
      tree.remove();
    }
  });

  it('passes a tree whose rooms are reached through their index.ts', () => {
    const tree = service({
      'src/sink/index.ts': "export * from './sink';\n",
      'src/sink/sink.ts': 'export const sink = 1;\n',
      'src/main.ts': "import { sink } from './sink';\nvoid sink;\n",
    });
    try {
      const result = lint(tree.dir);
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    } finally {
      tree.remove();
    }
  });

  it('passes every service of this repository, the segmenter with its six rooms', () => {
    for (const name of readdirSync(join(root, 'services'))) {
      const dir = join(root, 'services', name);
      const result = lint(dir);
      expect({ name, status: result.status, stderr: result.stderr }).toEqual({ name, status: 0, stderr: '' });
    }
    const segmenterSrc = join(root, 'services/segmenter/src');
    const folders = readdirSync(segmenterSrc).filter((f) => statSync(join(segmenterSrc, f)).isDirectory());
    expect(folders.sort()).toEqual(['api', 'campaigns', 'privacy', 'segments', 'sink', 'testing']);
  });
});
