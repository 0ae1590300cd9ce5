/** The real clients, as the quirk lists name them (one spelling for the docs' quirk table). */

/** The older CausalFoundrySDKCore line (earlier envelope form), tags 0.4.3–1.2.3. */
export const CF = 'causalfoundry/ios-sdk';
/** The current iOS client (current envelope form, flattened ctx). */
export const KENKAI = 'causalfoundry/ios-sdk Kenkai 1.0.0–1.0.1 (`ios/1.0.x`, `rn/ios/1.0.x`)';
/** The Unity SDK's iOS side: the Kenkai Core it bundles, a little newer than Kenkai iOS 1.0.1. */
const UNITY = 'causalfoundry/unity-sdk 1.0.10 (Kenkai Core `ios/1.0.10`)';
export const KENKAI_AND_UNITY = `${KENKAI}, ${UNITY}`;
/** The synthetic data generator, a server-side import (flat form, /data/ingest/…). */
export const GENERATOR = 'benshi-ai/open-synthetic-data-generator 9adc0d6 (server-side import)';
