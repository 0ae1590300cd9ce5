import { splitBatch } from './split';

// The script build of the 413 part (`web-split.js`): registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _split?: typeof splitBatch } };
if (g.evp) g.evp._split = splitBatch;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
