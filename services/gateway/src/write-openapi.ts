/** Rewrites docs/openapi.json from the code: `npx tsx services/gateway/src/write-openapi.ts`. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openApiDocument } from './openapi';

const file = resolve(__dirname, '../../../docs/openapi.json');
writeFileSync(file, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${file}`);
