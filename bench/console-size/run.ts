/**
 * The console's bundle sizes (npm run bench:console-size): each file of the console's build
 * (packages/console, raw and gzip level 9), and what a UI layer would add, measured the same way
 * in the same run: one table of rows drawn with Preact 10 + hooks + htm, with lit-html, and with
 * the console's own kind of plain DOM code (esbuild, minified, IIFE, ES2020). Preact, htm and
 * lit-html are installed from npm into a temporary directory (never into this repository).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundleConsole } from '@evp/console';

const gz = (s: string) => gzipSync(s, { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/** The same small page three ways: the rows of a keys table, each with a class and two text cells. */
const LAYERS = {
  'preact 10 + preact/hooks + htm': `import { h, render } from 'preact'; import { useState } from 'preact/hooks'; import htm from 'htm';
const html = htm.bind(h);
function Rows({ keys }) { const [n] = useState(0); return html\`<tbody>\${keys.map((k) => html\`<tr class=\${k.cls}><td>\${k.id}</td><td>\${n}</td></tr>\`)}</tbody>\`; }
render(html\`<\${Rows} keys=\${[{ id: 'a', cls: 'x' }]} />\`, document.getElementById('rows'));`,
  'lit-html': `import { html, render } from 'lit-html';
const keys = [{ id: 'a', cls: 'x' }];
render(html\`\${keys.map((k) => html\`<tr class=\${k.cls}><td>\${k.id}</td><td>0</td></tr>\`)}\`, document.getElementById('rows'));`,
  'plain DOM (the console’s way)': `const keys = [{ id: 'a', cls: 'x' }];
const t = document.getElementById('rows');
for (const k of keys) { const tr = document.createElement('tr'); tr.className = k.cls;
  for (const s of [k.id, '0']) { const td = document.createElement('td'); td.textContent = s; tr.appendChild(td); } t.appendChild(tr); }`,
};

async function bundled(dir: string, contents: string): Promise<string> {
  const out = await build({
    stdin: { contents, resolveDir: dir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'iife',
    write: false,
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

async function main() {
  const console_ = await bundleConsole();
  const rows = Object.entries(console_.entries).map(([name, file]) => [name, kb(console_.files[file]!.length), kb(gz(console_.files[file]!))]);
  const scripts = Object.entries(console_.entries).filter(([n]) => n.endsWith('.js'));
  rows.push([
    'all pages’ scripts',
    kb(scripts.reduce((n, [, f]) => n + console_.files[f]!.length, 0)),
    kb(scripts.reduce((n, [, f]) => n + gz(console_.files[f]!), 0)),
  ]);
  const chart = readFileSync(join(__dirname, '..', '..', 'node_modules', 'chart.js', 'dist', 'chart.umd.min.js'), 'utf8');
  rows.push(['chart.umd.min.js (not bundled; cached a year)', kb(chart.length), kb(gz(chart))]);
  const header = ['console file', 'minified', 'gzip'];
  console.log([header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n'));

  const dir = mkdtempSync(join(tmpdir(), 'console-size-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', 'preact@10', 'htm@3', 'lit-html@3'], {
      cwd: dir,
      stdio: 'inherit',
    });
    const version = (p: string) => (JSON.parse(readFileSync(join(dir, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version;
    console.log(`\nUI layers (preact ${version('preact')}, htm ${version('htm')}, lit-html ${version('lit-html')}): one table's rows\n`);
    const layerRows: string[][] = [];
    for (const [name, entry] of Object.entries(LAYERS)) {
      const text = await bundled(dir, entry);
      layerRows.push([name, kb(text.length), kb(gz(text))]);
    }
    console.log([header.map((h, i) => (i === 0 ? 'way' : h)), header.map(() => '---'), ...layerRows].map((r) => `| ${r.join(' | ')} |`).join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
