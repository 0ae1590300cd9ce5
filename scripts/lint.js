#!/usr/bin/env node
// Project rules that a type checker cannot see:
// - `process.env` is read only in config modules (config.ts) and composition roots' config;
// - services never import each other (they share code only through packages/*);
// - a service's production code never imports the embedded adapters (chdb must stay out of images).
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(process.argv[2] || '.');
const problems = [];

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

walk(path.join(dir, 'src'));
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
