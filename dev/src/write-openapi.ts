/** Rewrites docs/openapi.json and the client types generated from it: `npx tsx dev/src/write-openapi.ts`. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { platformOpenApi } from './openapi';
import { CLIENT_TYPES_FILE, openApiClientTypes } from './openapi-client-types';

const file = resolve(__dirname, '../../docs/openapi.json');
const json = `${JSON.stringify(platformOpenApi(), null, 2)}\n`;
writeFileSync(file, json);
console.log(`wrote ${file}`);
void openApiClientTypes(json).then((types) => {
  writeFileSync(CLIENT_TYPES_FILE, types);
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
});
