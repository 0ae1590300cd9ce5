import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

/**
 * The console's build (docs/console.md, "How the console is built"): one minified script per page
 * (src/pages/<page>/main.ts), the shell's stylesheet and a page's own (style.css beside its
 * main.ts), each named by its content hash, for the segmenter to serve under /console/assets/
 * with a year's cache. The segmenter's ConsoleBuild type is this shape.
 */
export interface ConsoleBuild {
  /** File name (`health-5LTK75B5.js`) → its text. */
  files: Record<string, string>;
  /** Logical name (`health.js`, `console.css`, `keys.css`) → the file's name in `files`. */
  entries: Record<string, string>;
}

/**
 * Browsers the console targets: the evergreen ones an operator uses (the web library's targets are
 * older: its users' phones). No `es2020` beside them, as in the web library's build: it would lower
 * class fields (the shell's ApiRefusal) into a define helper repeated in every page's script.
 */
const CONSOLE_TARGET = ['chrome100', 'firefox100', 'safari15.4'];

const src = __dirname;
const pagesDir = join(src, 'pages');

/** Every page: a folder of src/pages with a main.ts. Adding a page is adding the folder (and its row in the segmenter's console/index.ts). */
export const consolePages = (): string[] =>
  readdirSync(pagesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(pagesDir, d.name, 'main.ts')))
    .map((d) => d.name)
    .sort();

const common: BuildOptions = {
  bundle: true,
  minify: true,
  target: CONSOLE_TARGET,
  legalComments: 'none',
  write: false,
  outdir: join(src, 'out'),
  entryNames: '[name]-[hash]',
  logLevel: 'silent',
  absWorkingDir: src,
};

/** Builds the entries (name → source) and returns each one's logical name (`name.ext`) with its output. */
async function built(entryPoints: Record<string, string>, ext: 'js' | 'css', options: BuildOptions): Promise<[string, string, string][]> {
  const out = await build({ ...common, ...options, entryPoints, metafile: true });
  const text = new Map((out.outputFiles ?? []).map((f) => [basename(f.path), f.text]));
  return Object.entries(out.metafile.outputs)
    .filter(([path, meta]) => meta.entryPoint !== undefined && path.endsWith(`.${ext}`))
    .map(([path, meta]) => {
      const name = Object.entries(entryPoints).find(([, file]) => resolve(src, meta.entryPoint!) === resolve(file))![0];
      return [`${name}.${ext}`, basename(path), text.get(basename(path))!];
    });
}

/**
 * Builds browser scripts (each an IIFE) and stylesheets, minified and named by content hash, in
 * memory: the console's pages, and the demo shop's (dev/src/demo), which is built the same way.
 */
export async function bundleAssets(scripts: Record<string, string>, styles: Record<string, string>): Promise<ConsoleBuild> {
  const outputs = [...(await built(scripts, 'js', { format: 'iife' })), ...(await built(styles, 'css', {}))];
  return {
    files: Object.fromEntries(outputs.map(([, file, text]) => [file, text])),
    entries: Object.fromEntries(outputs.map(([name, file]) => [name, file])),
  };
}

/** Builds every page in memory (esbuild, ~100 ms): `npm start` and the tests serve this; the image build writes it (build/main.ts). */
export async function bundleConsole(): Promise<ConsoleBuild> {
  const pages = consolePages();
  const styles: Record<string, string> = { console: join(src, 'shell', 'console.css') };
  for (const p of pages) if (existsSync(join(pagesDir, p, 'style.css'))) styles[p] = join(pagesDir, p, 'style.css');
  return bundleAssets(Object.fromEntries(pages.map((p) => [p, join(pagesDir, p, 'main.ts')])), styles);
}

/** Writes a build to `dir` as the segmenter reads it from CONSOLE_ASSETS_DIR: every file, and manifest.json with the entries. */
export function writeConsoleBuild(build: ConsoleBuild, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(build.files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify({ entries: build.entries }, null, 2)}\n`);
}
