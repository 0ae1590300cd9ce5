import { readContext } from './context';

// The script build of the context part (`web-context.js`): registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _context?: typeof readContext } };
if (g.evp) g.evp._context = readContext;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
