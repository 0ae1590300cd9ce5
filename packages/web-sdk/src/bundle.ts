import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

/** The script build's files, minified: `web.js` (the core, global `evp`) and its lazily loaded parts: `web-messages.js` (the renderer), `web-actions.js` (the action pull), `web-errors.js` (captureErrors), `web-context.js` (context), `web-vitals.js` (webVitals), `web-split.js` (a 413's split). */
export interface WebSdkFiles {
  'web.js': string;
  'web-messages.js': string;
  'web-actions.js': string;
  'web-errors.js': string;
  'web-context.js': string;
  'web-vitals.js': string;
  'web-split.js': string;
}

/**
 * Browsers the builds target: the engines with Web Locks (Chrome 69, Firefox 96, Safari 15.4). No
 * `es2020` beside them: it would lower what all three have (`??=`, class fields) into longer code.
 */
export const BROWSER_TARGET = ['chrome96', 'firefox96', 'safari15.4'];

const INTERNAL =
  /^(deps|queue|uploader|sessions|shared|store|clock|transport|pending|inflight|leaving|showing|deviceId|handlers|load|app|renew|renewing|renewToken|part|skew|running|attempt|timer|bounds|exclusive|envelope|emit|left|forgetLeft|adoptLeft|consentChanged|consentKey|kept|verdict|showFor|enqueue|freeze|batches|backoff|schedule|retryNow|rendered|setUser|globals|cfg|lock|prefix|onAccepted|list|write|post|touch|current|navigate|online|leave|record|show|state|end|log|trim|keep|pass|view)$/;

/** Class fields as constructor assignments (`useDefineForClassFields: false`), never defineProperty helper calls (≈ 200 bytes gzip). */
const common: BuildOptions = {
  bundle: true,
  minify: true,
  write: false,
  legalComments: 'none',
  target: BROWSER_TARGET,
  logLevel: 'silent',
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
  // Internal member names only, each one no built-in, stored field, option, part or public name uses
  // (not `split`: a part's name, and String's):
  // minified like local names (the Chromium tests run the minified build).
  mangleProps: INTERNAL,
};

/** One file of the script build; `mangleCache` carries the core's mangled member names to its parts (built apart, they must agree). */
async function iife(entry: string, mangleCache: Record<string, string | false> = {}): Promise<{ text: string; mangleCache: Record<string, string | false> }> {
  const out = await build({ ...common, entryPoints: [join(__dirname, entry)], format: 'iife', mangleCache });
  return { text: out.outputFiles![0]!.text, mangleCache: out.mangleCache ?? {} };
}

/**
 * Builds the script build in memory (esbuild, ~50 ms), for the platform to serve at
 * `GET {base}/sdk/web.js` and `{base}/sdk/web-messages.js`.
 */
export async function bundleWebSdk(): Promise<WebSdkFiles> {
  const core = await iife('global.ts');
  const [messages, actions, errors, context, vitals, split] = await Promise.all(
    [
      'messages/global.ts',
      'parts/actions-global.ts',
      'parts/errors-global.ts',
      'parts/context-global.ts',
      'parts/vitals-global.ts',
      'parts/split-global.ts',
    ].map((e) => iife(e, core.mangleCache)),
  );
  return {
    'web.js': core.text,
    'web-messages.js': messages!.text,
    'web-actions.js': actions!.text,
    'web-errors.js': errors!.text,
    'web-context.js': context!.text,
    'web-vitals.js': vitals!.text,
    'web-split.js': split!.text,
  };
}

/** The ESM build's files (entry, block entries, the renderer chunk), path → text, in memory. */
export async function bundleEsm(entries: string[]): Promise<Map<string, string>> {
  const out = await build({
    ...common,
    entryPoints: entries.map((e) => join(__dirname, e)),
    format: 'esm',
    splitting: true,
    outdir: join(__dirname, '..', 'dist'),
    chunkNames: 'chunks/[name]-[hash]',
  });
  return new Map(out.outputFiles!.map((f) => [f.path, f.text]));
}
