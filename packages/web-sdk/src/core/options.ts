/** Consent: `pending` keeps events in memory only, `granted` stores and uploads, `denied` records nothing. */
export type Consent = 'pending' | 'granted' | 'denied';

export interface InitOptions {
  /** The app's SDK key (never an API key: it is public in the page). */
  sdkKey: string;
  /**
   * The platform: its API base (`https://events.example.com/v1`) or its bare base URL
   * (`http://127.0.0.1:8080`, what `npm start` prints): a URL whose path has no `/v<n>` gets `/v1`.
   */
  apiUrl: string;
  /** Id under which the app is published. @default location.hostname */
  appId?: string;
  /** `<major>.<minor>.<patch> (<code>)`. @default '1.0.0 (1)' */
  appVersion?: string;
  /** Track page events on every navigation, SPA history included (spec 4.3 rule 4). @default true */
  trackPages?: boolean;
  /** Track app open / background / resume / close. @default true */
  trackApp?: boolean;
  /** `batched` uploads every `flushIntervalMs` and when the page is hidden; `immediate` per event (s_id end 0). @default 'batched' */
  upload?: 'batched' | 'immediate';
  /** @default 10000 */
  flushIntervalMs?: number;
  /** Consent until the user chooses: a setConsent choice is remembered across visits and wins over this. @default 'granted' */
  consent?: Consent;
  /** The nudge mechanism: pull in-app messages for the user (spec 4.3 "listening for actions"). @default true */
  nudges?: boolean;
  /** Show pulled in-app messages as soon as they arrive; off: only showInAppMessage(screen) shows them (rule 1). @default true */
  autoShowInAppMessages?: boolean;
  /** How often the nudge mechanism pulls while the page is visible. @default 60000 */
  actionPollMs?: number;
  /** Queue bounds: oldest events are dropped first, and counted. */
  maxQueueEvents?: number;
  /** @default 5 MB of JSON */
  maxQueueBytes?: number;
  /** @default 7 days */
  maxEventAgeMs?: number;
  /** Log what the library does (and each upload's verdict) to the console. @default false */
  debug?: boolean;
  /** The message's button labels in the app's language (a message's own `attr.cta_label` wins for the call to action). @default { open: 'Open', close: 'Close' } */
  labels?: { open?: string; close?: string };
  /** The page's CSP nonce, set on the renderer's `<script>` the script build adds (a `'nonce-…'` script-src). */
  nonce?: string;
}

export type Settings = Required<Omit<InitOptions, 'consent' | 'labels' | 'nonce'>> & {
  consent: Consent | undefined;
  labels: { open: string; close: string };
  nonce: string | undefined;
};

/** Every default in one place. */
const DEFAULTS = {
  appVersion: '1.0.0 (1)',
  trackPages: true,
  trackApp: true,
  upload: 'batched',
  flushIntervalMs: 10_000,
  nudges: true,
  autoShowInAppMessages: true,
  actionPollMs: 60_000,
  maxQueueEvents: 10_000,
  maxQueueBytes: 5_000_000,
  maxEventAgeMs: 7 * 24 * 3600_000,
  debug: false,
} as const;

/** Session rules (spec 1: sessions are tracked by the library). */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 24 * 3600_000;

/**
 * A frozen batch stays under 60 KB and 100 events: browsers cap the bodies in flight with
 * `keepalive` (and sendBeacon) at 64 KB, so every batch can go out while the page unloads.
 */
export const BATCH_MAX_BYTES = 60_000;
export const BATCH_MAX_EVENTS = 100;

/** Backoff without Retry-After: 1 s doubling to 5 min, with jitter. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 300_000;

/** The API base: `…/v1` as given, or `/v1` appended to a URL whose path has no version segment. */
export function apiBase(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/v\d+$/.test(u) ? u : `${u}/v1`;
}

export function settle(o: InitOptions, hostname: string): Settings {
  const pick = <K extends keyof typeof DEFAULTS>(k: K) => (o[k] ?? DEFAULTS[k]) as Settings[K];
  return {
    sdkKey: o.sdkKey,
    apiUrl: apiBase(o.apiUrl),
    appId: o.appId ?? hostname,
    appVersion: pick('appVersion'),
    trackPages: pick('trackPages'),
    trackApp: pick('trackApp'),
    upload: pick('upload'),
    flushIntervalMs: pick('flushIntervalMs'),
    consent: o.consent,
    nudges: pick('nudges'),
    autoShowInAppMessages: pick('autoShowInAppMessages'),
    actionPollMs: pick('actionPollMs'),
    maxQueueEvents: pick('maxQueueEvents'),
    maxQueueBytes: pick('maxQueueBytes'),
    maxEventAgeMs: pick('maxEventAgeMs'),
    debug: pick('debug'),
    labels: { open: o.labels?.open ?? 'Open', close: o.labels?.close ?? 'Close' },
    nonce: o.nonce,
  };
}
