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
  /**
   * `browser`: IndexedDB and localStorage, once consent allows (nothing is written while it is
   * pending); `memory`: nothing is ever written to the device (each page starts afresh). @default 'browser'
   */
  storage?: 'browser' | 'memory';
  /**
   * The device and the page's attribution (user agent, locale, time zone, screen, viewport, landing
   * URL without its query, referrer, UTM parameters) in every envelope (a part loaded at init when on).
   * @default false
   */
  context?: boolean;
  /** LCP, INP and CLS, each logged once per page when it is hidden or left (a part loaded at init when on). @default false */
  webVitals?: boolean;
  /** Uncaught errors and unhandled rejections as `exception` events (a part loaded at init when on). @default false */
  captureErrors?: boolean;
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
  /**
   * A bot records nothing and pulls nothing, and counts what it did not record (status().bot,
   * status().filtered): an automated browser (`navigator.webdriver`: test robots, most headless
   * crawlers) or a crawler's user agent (isBot). false: it records like any. @default true
   */
  filterBots?: boolean;
  /** The message's button labels in the app's language (a message's own `attr.cta_label` wins for the call to action). @default { open: 'Open', close: 'Close' } */
  labels?: { open?: string; close?: string };
  /** The page's CSP nonce, set on the renderer's `<script>` the script build adds (a `'nonce-…'` script-src). */
  nonce?: string;
  /**
   * The signed-in user's token (a JWT the app's server signs, docs/keys.md "User tokens"), sent as
   * `X-EVP-User-Token` (`?user_token=` on a beacon) with every upload and pull. identify(…, { token })
   * and setUserToken() replace it; onUserTokenExpired() renews it.
   */
  userToken?: string;
  /**
   * Sees every event before it is stored: return it (changed or not) to keep it, null to drop it
   * (counted in status().filtered). A hook that throws keeps the event unchanged (and is warned about).
   */
  beforeSend?: (event: OutgoingEvent) => OutgoingEvent | null;
}

/** An event as it is stored and uploaded (one entry of the envelope's `data`, spec 2.1). */
export interface OutgoingEvent {
  /** Local time, `YYYY-MM-DD HH:mm:ss.SSS` (the envelope's tz says which). */
  time: string;
  name: string;
  property: string;
  ctx: Record<string, unknown>;
  meta?: unknown;
  /** Whether the browser was online when it was recorded. */
  __ol: boolean;
}

export type Settings = Required<Omit<InitOptions, 'consent' | 'labels' | 'nonce' | 'beforeSend' | 'userToken'>> & {
  /** The page is a bot's (filterBots and isBot): nothing is recorded, each event is counted in `filtered`. */
  bot?: boolean;
  userToken: string | undefined;
  consent: Consent | undefined;
  beforeSend: InitOptions['beforeSend'];
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
  filterBots: true,
  storage: 'browser',
  captureErrors: false,
  context: false,
  webVitals: false,
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

/**
 * A bot: an automated browser (WebDriver sets `navigator.webdriver`), a headless browser, or a
 * crawler's user agent (Googlebot, bingbot, YandexBot, Baiduspider, Slurp, Lighthouse, PhantomJS…;
 * not the CUBOT phones, whose model names end in "bot").
 */
export const isBot = (ua: string, webdriver: boolean) => webdriver || /headless|[^u]bot\b|crawl|spider|slurp|lighthouse|phantom/i.test(ua);

/** The API base: `…/v1` as given, or `/v1` appended to a URL whose path has no version segment. */
export function apiBase(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/v\d+$/.test(u) ? u : `${u}/v1`;
}

export function settle(o: InitOptions, hostname: string): Settings {
  // Every option given (an undefined one is not given) over its default.
  const given = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return {
    ...DEFAULTS,
    ...given,
    apiUrl: apiBase(o.apiUrl),
    appId: o.appId ?? hostname,
    consent: o.consent,
    labels: { open: 'Open', close: 'Close', ...o.labels },
    nonce: o.nonce,
  } as Settings;
}
