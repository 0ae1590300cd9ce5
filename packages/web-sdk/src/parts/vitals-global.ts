import { watchVitals } from './vitals';

// The script build of the web vitals part (`web-vitals.js`): registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _vitals?: typeof watchVitals } };
if (g.evp) g.evp._vitals = watchVitals;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
