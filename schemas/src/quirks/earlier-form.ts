import type { ClientQuirk } from './types';

/** Quirks of the earlier form clients (see types.ts). */
export const earlierFormQuirks: readonly ClientQuirk[] = [];
