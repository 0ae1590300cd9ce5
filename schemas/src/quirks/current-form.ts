import type { ClientQuirk } from './types';

/** Quirks of the current form clients (see types.ts). */
export const currentFormQuirks: readonly ClientQuirk[] = [];
