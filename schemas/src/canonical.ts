import type { ENVELOPE_FORMS } from './canonical-fields';

export type EnvelopeForm = (typeof ENVELOPE_FORMS)[number];

/** What every envelope form becomes; its fields are those of CANONICAL_FIELDS (canonical-fields.ts). */
export type { CanonicalEvent } from '../generated/records';

/** Provenance the gateway attaches to every raw message (its headers: @evp/contract). */
export type { IngestContext } from '@evp/contract';
