/**
 * Our browser library's gzip sizes beside posthog-js, @snowplow/browser-tracker and
 * @segment/analytics-next, measured the same way in one run (npm run bench:web-sdk-size):
 *
 * 1. "app bundle": what an app adds to its own bundle to initialise the library and track an event
 *    — a two-line entry per library, bundled with esbuild (minified, browser, ES2020), gzip level 9.
 *    Lazy chunks (code an SDK loads only when needed) are reported beside, not in it.
 * 2. "script": the file the library's script-tag snippet loads (ours: web.js), as published.
 *
 * The other libraries are installed from npm into a temporary directory (never into this repository).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundleWebSdk } from '@evp/web-sdk/bundle';

const OTHERS = {
  'posthog-js': {
    entry: "import posthog from 'posthog-js'; posthog.init('phc_x', { api_host: 'https://x' }); posthog.capture('clicked');",
    script: 'dist/array.js',
  },
  '@snowplow/browser-tracker': {
    entry: "import { newTracker, trackPageView } from '@snowplow/browser-tracker'; newTracker('sp', 'https://x'); trackPageView();",
    script: 'dist/index.umd.min.js',
  },
  '@segment/analytics-next': {
    entry: "import { AnalyticsBrowser } from '@segment/analytics-next'; const a = AnalyticsBrowser.load({ writeKey: 'x' }); void a.track('clicked');",
    script: 'dist/umd/standalone.js',
  },
} as const;

const OURS_ENTRY =
  "import { init, track } from '@evp/web-sdk'; init({ sdkKey: 'sdk_x', apiUrl: 'https://x/v1' }); void track('rate', { rate_value: 5, type: 'app', subject_id: 'app' });";

const gz = (s: string | Buffer) => gzipSync(s, { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function appBundle(dir: string, entry: string): Promise<{ main: number; lazy: number }> {
  const out = await build({
    stdin: { contents: entry, resolveDir: dir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    outdir: join(dir, 'out'),
    write: false,
    platform: 'browser',
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const files = out.outputFiles ?? [];
  const main = files.find((f) => f.path.endsWith('stdin.js'));
  const lazy = files.filter((f) => f !== main && f.path.endsWith('.js')).reduce((a, f) => a + gz(f.text), 0);
  return { main: main ? gz(main.text) : 0, lazy };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'web-sdk-size-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...Object.keys(OTHERS)], { cwd: dir, stdio: 'inherit' });
    const rows: string[][] = [];
    const ours = await bundleWebSdk();
    const oursApp = await appBundle(join(__dirname, '..', '..'), OURS_ENTRY);
    rows.push([
      '@evp/web-sdk 0.1.0 (this repository)',
      kb(oursApp.main),
      kb(oursApp.lazy),
      kb(gz(ours['web.js'])),
      `parts loaded when needed: web-messages.js ${kb(gz(ours['web-messages.js']))}, web-actions.js ${kb(gz(ours['web-actions.js']))}, web-errors.js ${kb(gz(ours['web-errors.js']))}, web-context.js ${kb(gz(ours['web-context.js']))}, web-vitals.js ${kb(gz(ours['web-vitals.js']))}, web-split.js ${kb(gz(ours['web-split.js']))}`,
    ]);
    for (const [name, o] of Object.entries(OTHERS)) {
      const pkgDir = join(dir, 'node_modules', name);
      const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
      const app = await appBundle(dir, o.entry);
      const script = existsSync(join(pkgDir, o.script)) ? kb(gz(readFileSync(join(pkgDir, o.script)))) : 'n/a';
      rows.push([`${name} ${version}`, kb(app.main), kb(app.lazy), script, o.script]);
    }
    const header = ['library', 'app bundle (gzip)', 'lazy chunks (gzip)', 'script file (gzip)', 'script file / note'];
    console.log([header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
