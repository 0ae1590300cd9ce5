/** Rewrites docs/openapi.json from the code: `npx tsx dev/src/write-openapi.ts`. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { platformOpenApi } from './openapi';

const file = resolve(__dirname, '../../docs/openapi.json');
writeFileSync(file, `${JSON.stringify(platformOpenApi(), null, 2)}\n`);
console.log(`wrote ${file}`);
