import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { build } from 'esbuild';

/**
 * The console's build (docs/console.md, "How the console is built"): one minified script per page
 * (src/pages/<page>/main.ts), named by its content hash, for the segmenter to serve under
 * /console/assets/ with a year's cache. The segmenter's ConsoleBuild type is this shape.
 */
export interface ConsoleBuild {
  /** File name (`health-5VQ3K2ZD.js`) → its text. */
  files: Record<string, string>;
  /** Page (`health`) → the name of its script in `files`. */
  entries: Record<string, string>;
}

/** Browsers the console targets: the evergreen ones an operator uses (the web library's targets are older: its users' phones). */
const CONSOLE_TARGET = ['es2020', 'chrome100', 'firefox100', 'safari15.4'];

const pagesDir = join(__dirname, 'pages');

/** Every page: a folder of src/pages with a main.ts. Adding a page is adding the folder (and its markup and route in the segmenter). */
export const consolePages = (): string[] =>
  readdirSync(pagesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && readdirSync(join(pagesDir, d.name)).includes('main.ts'))
    .map((d) => d.name)
    .sort();

/** Builds every page in memory (esbuild, ~100 ms): `npm start` and the tests serve this; the image build writes it (build/main.ts). */
export async function bundleConsole(): Promise<ConsoleBuild> {
  const pages = consolePages();
  const out = await build({
    entryPoints: Object.fromEntries(pages.map((p) => [p, join(pagesDir, p, 'main.ts')])),
    bundle: true,
    minify: true,
    format: 'iife',
    target: CONSOLE_TARGET,
    legalComments: 'none',
    write: false,
    outdir: join(__dirname, 'out'),
    entryNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'silent',
  });
  const files: Record<string, string> = {};
  const entries: Record<string, string> = {};
  for (const f of out.outputFiles) files[basename(f.path)] = f.text;
  for (const [path, meta] of Object.entries(out.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    entries[basename(join(meta.entryPoint, '..'))] = basename(path);
  }
  if (Object.keys(entries).length !== pages.length) throw new Error(`console build: ${relative(process.cwd(), pagesDir)} has ${pages.length} pages, the build ${Object.keys(entries).length}`);
  return { files, entries };
}
