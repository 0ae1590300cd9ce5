import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadConsoleAssets } from '@evp/segmenter';
import { bundleConsole, consolePages, writeConsoleBuild, type ConsoleBuild } from './bundle';

const KB = 1024;
const gz = (s: string) => gzipSync(s, { level: 9 }).length;

/**
 * The size budget (docs/benchmarks.md, "Console bundle size"): a page's script ≤ 5 KB gzip, every
 * page's together ≤ 20 KB, a stylesheet ≤ 2 KB. Chart.js (69 KB gzip, cached for a year under its
 * hash) is loaded beside the pages that draw, not bundled, so it is not counted here. A UI layer
 * would not fit: Preact + hooks + htm alone is 6.0 KB gzip, lit-html 3.2 KB (docs/console.md).
 */
const CONSOLE_BUDGET = { pageScript: 5 * KB, allScripts: 20 * KB, stylesheet: 2 * KB };

describe('the console build', () => {
  let build: ConsoleBuild;
  beforeAll(async () => {
    build = await bundleConsole();
  });

  it('builds every page of src/pages: a script each, the shell’s stylesheet, and the pages’ own', () => {
    expect(consolePages()).toEqual(['audit', 'campaigns', 'health', 'inspector', 'keys', 'privacy', 'segments', 'sql']);
    expect(Object.keys(build.entries).sort()).toEqual(
      [
        'audit.js',
        'campaigns.js',
        'console.css',
        'health.js',
        'inspector.css',
        'inspector.js',
        'keys.css',
        'keys.js',
        'privacy.js',
        'segments.js',
        'sql.js',
      ].sort(),
    );
    // Each named by its content's hash: the same sources give the same names; every entry's file is there.
    for (const [name, file] of Object.entries(build.entries)) {
      const [base, ext] = name.split('.');
      expect(file).toMatch(new RegExp(`^${base}-[A-Z0-9]{8}\\.${ext}$`));
      expect(build.files[file]).toBeDefined();
    }
  });

  it('is the same build twice (names are content hashes, so a browser may cache them for a year)', async () => {
    expect((await bundleConsole()).entries).toEqual(build.entries);
  });

  it('keeps within its size budget', () => {
    const scripts = Object.entries(build.entries).filter(([n]) => n.endsWith('.js'));
    for (const [name, file] of scripts) expect([name, gz(build.files[file]!) <= CONSOLE_BUDGET.pageScript]).toEqual([name, true]);
    expect(scripts.reduce((n, [, f]) => n + gz(build.files[f]!), 0)).toBeLessThanOrEqual(CONSOLE_BUDGET.allScripts);
    for (const [name, file] of Object.entries(build.entries).filter(([n]) => n.endsWith('.css')))
      expect([name, gz(build.files[file]!) <= CONSOLE_BUDGET.stylesheet]).toEqual([name, true]);
  });

  it('uses nothing the strict content policy forbids, and puts no markup in from strings', () => {
    for (const [file, text] of Object.entries(build.files)) {
      expect([file, /\beval\(|new Function\(|\binnerHTML\b|outerHTML|insertAdjacentHTML|document\.write/.test(text)]).toEqual([file, false]);
    }
  });

  it('bundles Chart.js’s types only, never Chart.js (the page loads its browser build)', () => {
    expect(build.files[build.entries['health.js']!]!.length).toBeLessThan(20 * KB);
    expect(Object.values(build.files).some((t) => t.includes('Chart.js v'))).toBe(false);
  });

  it('is read back by the segmenter from the directory the image build writes (CONSOLE_ASSETS_DIR)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
    try {
      writeConsoleBuild(build, dir);
      copyFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'), join(dir, 'chart.umd.min.js'));
      copyFileSync(resolve(__dirname, '../../../docs/analytics.md'), join(dir, 'analytics.md'));
      expect(loadConsoleAssets({ dir }).build).toEqual(build);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
