/**
 * Privacy classes of the data contract (docs/privacy.md, "Data classes"). Every field of every event,
 * nested object and catalog definition resolves to one (@evp/schemas privacy/resolve.ts); the keys
 * file sets, per app, what the validator does with each class (policy.ts). Here, not in
 * @evp/schemas, because the keys file (this package) names them too.
 */
export const PRIVACY_CLASSES = ['direct_identifier', 'quasi_identifier', 'health', 'contact', 'free_text', 'none'] as const;
export type PrivacyClass = (typeof PRIVACY_CLASSES)[number];

/** The classes a policy may act on: `none` says nothing about a person and is always kept. */
export const SENSITIVE_CLASSES = ['direct_identifier', 'quasi_identifier', 'health', 'contact', 'free_text'] as const;
export type SensitiveClass = (typeof SENSITIVE_CLASSES)[number];

/** What the validator does with a field of a class (docs/privacy.md, "Policy"). */
export const PRIVACY_ACTIONS = ['keep', 'pseudonymise', 'drop'] as const;
export type PrivacyAction = (typeof PRIVACY_ACTIONS)[number];
