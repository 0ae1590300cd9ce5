import { renderer } from './render';

// The script build of the renderer: registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _renderer?: typeof renderer } };
if (g.evp) g.evp._renderer = renderer;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
