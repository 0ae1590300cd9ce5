import type { RequestClient } from '@evp/contract';
import type { EnvelopeForm } from '../canonical';
import { parseSdk } from '../normalize/client-fields';

/**
 * The real clients whose quirks the platform accepts, each recognised by what it says about itself
 * (docs/data-contract.md, "Which client sent it"; docs/clients/*.md):
 *
 * - `ios-cf`: the older CausalFoundry iOS line, causalfoundry/ios-sdk 0.4.3–1.2.3 — an earlier-form
 *   envelope whose `sdk` is `ios/<version>` (or `rn/ios/<version>` from its React Native wrapper)
 *   with the version in that range (CoreConstants.SDKVersion of each tag).
 * - `ios-kenkai`: the Kenkai iOS client, causalfoundry/ios-sdk 1.0.0–1.0.1 — a current-form envelope
 *   whose `internal.sdk` is `ios/1.0.0` or `ios/1.0.1` (or `rn/ios/…`).
 * - `unity-ios`: the Kenkai Core 1.0.10 bundled by causalfoundry/unity-sdk 1.0.10 — a current-form
 *   envelope whose `internal.sdk` is `ios/1.0.10`.
 * - `server-import`: a server-side import (benshi-ai/open-synthetic-data-generator) — the flat form
 *   (`{"data": [{u_id, d_id, os, …}]}`), which no client library sends.
 *
 * Anything else — `web/1.0.0`, `android/2.0.0`, an `ios` version outside these ranges, another form —
 * is no known client (null): it meets the spec's rules, with no quirk forgiven.
 */
export type ClientLine = 'ios-cf' | 'ios-kenkai' | 'unity-ios' | 'server-import';

export const CLIENT_LINES: readonly ClientLine[] = ['ios-cf', 'ios-kenkai', 'unity-ios', 'server-import'];

/** `1.2.3` → [1, 2, 3]; undefined for anything that is not dot-separated numbers. */
export function versionParts(v: string): number[] | undefined {
  if (!/^\d+(\.\d+)*$/.test(v)) return undefined;
  return v.split('.').map(Number);
}

/** a ≤ b as versions (missing parts are 0). */
function atMost(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return true;
}

/** from ≤ v ≤ to, as versions. */
export const inRange = (v: readonly number[], from: readonly number[], to: readonly number[]) => atMost(from, v) && atMost(v, to);

/**
 * Which known client sent an envelope, from its form and its parsed `sdk` (name without a wrapper,
 * version): computed once per envelope (per log in the flat form, where it is constant), so every
 * gate check on the hot path is a comparison of this value.
 */
export function identifyClient(form: EnvelopeForm, sdkName: string, sdkVersion: string): ClientLine | null {
  if (form === 'flat') return 'server-import';
  if (sdkName !== 'ios') return null;
  const v = versionParts(sdkVersion);
  if (v === undefined) return null;
  if (form === 'earlier') return inRange(v, [0, 4, 3], [1, 2, 3]) ? 'ios-cf' : null;
  if (v.length === 3 && v[0] === 1 && v[1] === 0) {
    if (v[2] === 0 || v[2] === 1) return 'ios-kenkai';
    if (v[2] === 10) return 'unity-ios';
  }
  return null;
}

/**
 * The client an event or catalog record comes from, as the gates read it (quirks/gate.ts): its line
 * and sdk version (EnvelopeFacts carry both). `lineVersion` null: the line is known but not its
 * version (a catalog upload, which carries no sdk string), so a gate naming the line between two
 * versions admits it. `orLines`: further lines it may be when what it says cannot tell them apart
 * (an undeclared `/v1/ingest/dimensions` upload: Kenkai iOS or the Unity SDK's Kenkai Core).
 */
export interface Sender {
  line: ClientLine | null;
  lineVersion: readonly number[] | null;
  orLines?: readonly ClientLine[];
}

/** No known client: every quirk meets the spec's rule. */
export const SPEC_CLIENT: Sender = { line: null, lineVersion: null };

/**
 * How a catalog upload reached the platform (the gateway's `route_form` raw header, @evp/contract):
 * `sdk` = `POST /v1/ingest/catalog/{kind}` (a bare array; the older iOS line, and any spec client),
 * `import` = `POST /data/ingest/catalog/{kind}` (API key: a server-side import), and the payload kind
 * `dimensions` = `POST /v1/ingest/dimensions` (the Kenkai Core's `{"data": [{id, type, kv}]}`).
 */
type CatalogRoute = 'sdk' | 'import' | 'dimensions';

/**
 * What a catalog upload says about its client. Catalog bodies carry no `sdk` string, so the gateway
 * forwards what the request itself says: the route, the client's own declaration (`X-EVP-SDK:
 * <os>/<version>`, parsed as an envelope's `sdk`; the platform's web library sends it, the real
 * mobile clients do not) and the `User-Agent`.
 */
export interface CatalogClientFacts {
  route: CatalogRoute;
  /** The declared sdk, parsed (name without a wrapper, version); undefined when none was declared. */
  sdk?: { name: string; version: string };
  userAgent?: string;
}

/**
 * Apple's URL loading system names itself in every request it sends unless the app overrides the
 * header: `<App>/<build> CFNetwork/<v> Darwin/<v>`. causalfoundry/ios-sdk sets only Content-Type
 * and Authorization (BackgroundRequestController.swift:64-65), so its catalog uploads carry this one.
 */
const APPLE_URL_LOADING = /\bCFNetwork\/[\d.]+ Darwin\/[\d.]+/;

/**
 * Which known client sent a catalog upload (docs/data-contract.md, "Which client sent a catalog"):
 *
 * - `import` → `server-import` (the route takes an API key: only a server-side import uses it).
 * - a declared sdk → the line it names, as for an envelope: on `/v1/ingest/catalog/{kind}` the older
 *   iOS line's range (its uploads go there), on `/v1/ingest/dimensions` Kenkai's (`ios/1.0.0`–`1.0.1`)
 *   or Unity's (`ios/1.0.10`); anything else (`web/1.0.0`) is no known client.
 * - undeclared on `/v1/ingest/dimensions` → Kenkai iOS or the Unity SDK's Kenkai Core (only they use
 *   that route, and nothing in their requests tells them apart), version unknown.
 * - undeclared on `/v1/ingest/catalog/{kind}` with Apple's URL-loading User-Agent →
 *   causalfoundry/ios-sdk 0.4.3–1.2.3 (the only real client that uploads catalogs there from
 *   iOS), version unknown; any other caller is no known client and meets the spec.
 */
export function identifyCatalogClient(f: CatalogClientFacts): Sender {
  if (f.route === 'import') return { line: 'server-import', lineVersion: null };
  if (f.sdk !== undefined) {
    const line = identifyClient(f.route === 'dimensions' ? 'current' : 'earlier', f.sdk.name, f.sdk.version);
    return line === null ? SPEC_CLIENT : { line, lineVersion: versionParts(f.sdk.version) ?? null };
  }
  if (f.route === 'dimensions') return { line: 'ios-kenkai', lineVersion: null, orLines: ['unity-ios'] };
  if (f.userAgent !== undefined && APPLE_URL_LOADING.test(f.userAgent)) return { line: 'ios-cf', lineVersion: null };
  return SPEC_CLIENT;
}

/**
 * The client of a catalog raw message, from what the gateway forwarded (@evp/contract's
 * RequestClient; absent in messages of older gateways and hand-made ones, which are then taken for
 * what their payload kind alone says). A declaration that is no `<os>/<version>` declares no known
 * client.
 */
export function catalogUploadClient(dimensions: boolean, client: RequestClient | undefined): Sender {
  const route: CatalogRoute = dimensions ? 'dimensions' : client?.route === 'import' ? 'import' : 'sdk';
  if (client?.sdk === undefined) return identifyCatalogClient({ route, userAgent: client?.userAgent });
  const sdk = parseSdk(client.sdk);
  return identifyCatalogClient({ route, sdk: sdk ?? { name: client.sdk, version: '' }, userAgent: client.userAgent });
}
