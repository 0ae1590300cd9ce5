#!/usr/bin/env node
// Project rules that a type checker cannot see:
// - `process.env` is read only in config modules (config.ts) and composition roots' config;
// - services never import each other (they share code only through packages/*);
// - a service's production code never imports the embedded adapters (chdb must stay out of images);
// - in a service, a folder directly under src/ with an index.ts (a room: one job, e.g. the
//   segmenter's sink/, segments/, campaigns/, api/, testing/) is imported from outside only through
//   that index.ts, so its other files can change without its users knowing (tests included); only
//   tests import the testing/ room;
// - metric series are declared (`new Counter/Gauge/Histogram/Summary`) only in a file named
//   metrics.ts (one per service, or the shared package's), never beside the code that counts.
const fs = require('node:fs');
const path = require('node:path');

// Run from the root without a folder: every workspace with a src/ (what `turbo run lint` runs one by one).
if (!process.argv[2] && !fs.existsSync(path.resolve('src'))) {
  const { spawnSync } = require('node:child_process');
  const workspaces = ['packages', 'services']
    .flatMap((d) => fs.readdirSync(d).map((n) => path.join(d, n)))
    .concat(['schemas', 'dev'])
    .filter((d) => fs.existsSync(path.join(d, 'src')));
  const failed = workspaces.filter((d) => spawnSync(process.execPath, [__filename, d], { stdio: 'inherit' }).status !== 0);
  process.exit(failed.length > 0 ? 1 : 0);
}

const dir = path.resolve(process.argv[2] || '.');
const problems = [];
const src = path.join(dir, 'src');
const isServiceDir = path.basename(path.dirname(dir)) === 'services';
const rooms =
  isServiceDir && fs.existsSync(src)
    ? fs
        .readdirSync(src, { withFileTypes: true })
        .filter((e) => e.isDirectory() && fs.existsSync(path.join(src, e.name, 'index.ts')))
        .map((e) => e.name)
    : [];

/** The room (a folder directly under src/ with an index.ts) a path lies in, or undefined. */
function roomOf(p) {
  const first = path.relative(src, p).split(path.sep)[0];
  return rooms.includes(first) ? first : undefined;
}

/** How `file` names room `to`'s index: `./sink`, `../segments`. */
function roomSpec(file, to) {
  const spec = path.relative(path.dirname(file), path.join(src, to)).split(path.sep).join('/');
  return spec.startsWith('.') ? spec : `./${spec}`;
}

/** Relative imports that reach past another room's index.ts. */
function roomProblems(file, text, rel) {
  const from = roomOf(file);
  for (const m of text.matchAll(/(?:from |import\()'(\.[^']*)'/g)) {
    const target = path.resolve(path.dirname(file), m[1]);
    const to = roomOf(target);
    if (!to || to === from) continue;
    const inside = path.relative(path.join(src, to), target);
    if (to === 'testing' && !/\.test\.ts$/.test(file)) problems.push(`${rel}: production code imports the testing/ room`);
    else if (inside !== '' && inside !== 'index') problems.push(`${rel}: imports ${m[1]} past the ${to}/ room's index.ts (import '${roomSpec(file, to)}')`);
  }
}

function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.ts$/.test(e.name)) check(p);
  }
}

function check(file) {
  const rel = path.relative(process.cwd(), file);
  const text = fs.readFileSync(file, 'utf8');
  const isTest = /\.test\.ts$/.test(file) || file.includes(`${path.sep}testkit${path.sep}`);
  const isConfig = /(^|[\\/])config\.ts$/.test(file) || /[\\/]dev[\\/]src[\\/]main\.ts$/.test(file);
  if (!isTest && !isConfig && /process\.env\b/.test(text)) problems.push(`${rel}: reads process.env outside a config module`);
  roomProblems(file, text, rel);
  if (!isTest && path.basename(file) !== 'metrics.ts' && /\bnew (Counter|Gauge|Histogram|Summary)\b/.test(text)) {
    problems.push(`${rel}: declares a metric outside metrics.ts (declare it in the service's metrics.ts and inject the registry)`);
  }
  const inService = file.match(/[\\/]services[\\/]([^\\/]+)[\\/]/);
  if (inService && !isTest) {
    for (const m of text.matchAll(/from '(@evp\/[^'/]+)/g)) {
      const dep = m[1];
      if (['@evp/gateway', '@evp/validator', '@evp/segmenter', '@evp/action-store'].includes(dep)) {
        problems.push(`${rel}: a service imports another service (${dep})`);
      }
      if (dep === '@evp/embedded' || dep === '@evp/testkit') problems.push(`${rel}: production code imports ${dep}`);
    }
  }
}

walk(src);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
