import { watchErrors } from './errors';

// The script build of the errors part (`web-errors.js`): registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _errors?: typeof watchErrors } };
if (g.evp) g.evp._errors = watchErrors;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
