import { Actions } from './actions';

// The script build of the action part (`web-actions.js`): registers on the `evp` global the core defined (no new global).
const g = globalThis as typeof globalThis & { evp?: { _actions?: typeof Actions } };
if (g.evp) g.evp._actions = Actions;

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS wrappers.
export {};
