import type { ClientQuirk } from './types';

/** Quirks of the server import clients (see types.ts). */
export const serverImportQuirks: readonly ClientQuirk[] = [];
