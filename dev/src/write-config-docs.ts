/** Rewrites the options tables of docs/configuration.md from the parts' options: `npx tsx dev/src/write-config-docs.ts`. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withConfigTables } from './config-docs';

const file = resolve(__dirname, '../../docs/configuration.md');
writeFileSync(file, withConfigTables(readFileSync(file, 'utf8')));
// The repository's Markdown is prettier's (columns padded); the check compares cells, not padding.
execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', file], { stdio: 'inherit' });
console.log(`wrote ${file}`);
