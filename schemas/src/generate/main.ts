/**
 * Regenerates everything derived from the contract definitions (Avro per topic, TypeScript types,
 * reference pages). Run: npm run generate -w @evp/schemas
 */
import { writeGenerated } from './generate';

const { written, removed, unchanged } = writeGenerated();
for (const p of written) console.log(`wrote   ${p}`);
for (const p of removed) console.log(`removed ${p}`);
console.log(`${written.length} written, ${removed.length} removed, ${unchanged} unchanged`);
