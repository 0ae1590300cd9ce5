/** Rewrites schemas/corpus/clients/web-<version>.json from the library (contract.test.ts fails when it is stale). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_PATH, webCorpus } from '../contract/corpus';

void webCorpus().then((c) => {
  writeFileSync(join(__dirname, '..', '..', '..', '..', CORPUS_PATH), `${JSON.stringify(c, null, 2)}\n`);
  console.log(`wrote ${CORPUS_PATH} (${c.payloads.length} payloads)`);
});
