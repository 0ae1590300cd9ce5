/// <reference lib="dom" />
import { attach } from './browser/auto';
import { oneDeviceId } from './browser/device-id';
import { fallbackStore, heldStores, idbStore, memoryStore, sharedStore } from './browser/stores';
import { fetchTransport, webLock } from './browser/transport';
import type { Action, ActionEvent, ActionQuery } from './core/actions';
import { Client, consentKeyOf, type ActionResponse, type AppHooks, type IdentifyAction, type Load, type Parts } from './core/client';
import { guard } from './core/guard';
import { isBot, settle, type Consent, type InitOptions, type Settings } from './core/options';
import type { Clock, Deps } from './core/ports';
import type { CatalogKind, CatalogRecordByKind, EventName, EventPropsByName, IdentifyExtra } from './generated/events';

export type { ActionResponse, IdentifyAction };

export interface Status {
  user: string;
  consent: Consent;
  uploads: 'idle' | 'backoff' | 'stopped';
  /** Events dropped by the queue bounds (oldest first) since the page loaded. */
  dropped: number;
  /** Events the platform refused for good (a 4xx other than 401/403/408/413/429). */
  refused: number;
  /** Events the beforeSend hook or the bot filter dropped since the page loaded. */
  filtered: number;
  /** The page is a bot's (filterBots): nothing is recorded or pulled; `filtered` counts what was not recorded. */
  bot: boolean;
}

/** The library's public surface: the same object is the `evp` global of the script build. */
export interface Evp {
  init: (options: InitOptions) => void;
  /** Logs an event of spec section 6; its props are type-checked per event name. Resolves once it is stored. */
  track: <N extends EventName>(name: N, props: EventPropsByName[N], meta?: unknown) => Promise<void>;
  /** An app-defined event (not in the spec): the platform keeps it as a `custom` event under its name; `values` travel in `meta`. */
  trackCustom: (name: string, values?: Record<string, unknown>) => Promise<void>;
  /** register / login switch to `userId` (a new session); logout logs out of it; user properties update the user catalog. */
  /** `extra.token`: the user's token (login / register replace the last one, which was another user's). */
  identify: (
    action: IdentifyAction,
    userId: string,
    userProps?: Partial<CatalogRecordByKind['user']>,
    extra?: IdentifyExtra & { token?: string },
  ) => Promise<void>;
  /** The signed-in user's token from now on (a renewal the app made itself); uploads held for it go at once. */
  setUserToken: (token: string) => Promise<void>;
  /**
   * Called when the platform refuses the user token (expired, or none while a user is signed in): it
   * answers a new one from the app's server; the refused call is then sent again with it. One call
   * at a time, however many requests wait.
   */
  onUserTokenExpired: (renew: () => Promise<string>) => void;
  catalog: <K extends CatalogKind>(kind: K, record: CatalogRecordByKind[K]) => Promise<void>;
  /** Uploads what is queued now. */
  flush: () => Promise<void>;
  /** Forgets the user and ends the session (the device id stays). */
  reset: () => void;
  setConsent: (consent: Consent) => Promise<void>;
  /** Same as setConsent('denied'): queued events are deleted and nothing more is recorded. */
  optOut: () => Promise<void>;
  fetchActions: (query: ActionQuery) => Promise<Action[]>;
  /** Rule 2: the handler gets cta_type, cta_id and the action's attributes; the library never navigates. Returns an unsubscribe function. */
  onAction: (handler: (e: ActionEvent) => void) => () => void;
  /** Rule 1: shows the user's next in-app message for `screen` (attr `screen`, or none). Resolves whether one was shown. */
  showInAppMessage: (screen: string) => Promise<boolean>;
  /** An action the app rendered itself was opened, discarded or failed: logs nudge_response; a one-off action is handled (not kept any more). */
  respond: (action: Action, response: ActionResponse) => Promise<void>;
  status: () => Promise<Status | undefined>;
  /** Properties every later event of this page carries in its `meta` (merged into an object meta). */
  register: (props: Record<string, unknown>) => Promise<void>;
  unregister: (name: string) => Promise<void>;
}

/** How long calls made before init() wait for it. */
const PRE_INIT_WAIT_MS = 30_000;

const browserClock: Clock = {
  now: Date.now,
  offset: (ms) => -new Date(ms).getTimezoneOffset(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as number),
};

const warn = (m: string, d?: unknown) => console.warn(`[evp] ${m}`, d ?? '');
const debug = (m: string, d?: unknown) => console.info(`[evp] ${m}`, d ?? '');

/**
 * Builds the API. Nothing here touches window or document until init() runs, so importing the
 * library during server-side rendering is harmless (and init() there is a no-op).
 */
export function createApi(load: Load): Evp {
  // Calls made before init() wait for it (an app may track before it initialises the library);
  // without a window (server-side rendering) there is no init to wait for.
  let settle_: (c: Promise<Client | undefined>) => void = () => undefined;
  const ready = new Promise<Client | undefined>((resolve) => (settle_ = resolve));
  let started = false;
  const hooks: AppHooks = { handlers: [] };
  const handlers = hooks.handlers;
  // Every call resolves: a failure to its harmless value (warned about, never thrown into the app),
  // and a call made before init() to that value too when init() has not come within PRE_INIT_WAIT_MS.
  const withClient =
    <A extends unknown[], R>(fallback: R, fn: (c: Client, ...a: A) => R | Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        if (!started && typeof document === 'undefined') return fallback;
        const c = started ? await ready : await Promise.race([ready, new Promise<undefined>((r) => setTimeout(r, PRE_INIT_WAIT_MS))]);
        if (!c) warn('no init(): call ignored');
        return c ? await fn(c, ...a) : fallback;
      } catch (e) {
        warn('a call failed', e);
        return fallback;
      }
    };

  /** The nudge mechanism's pull (and auto-show); never waited for, failures warned about. */
  const poll = (c: Client) => {
    if (!c.cfg.nudges || c.consent === 'denied') return;
    c.actions()
      .then((a): Promise<unknown> =>
        c.cfg.autoShowInAppMessages ? a.showFor(undefined) : a.fetchActions({ type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' }),
      )
      .catch((e: unknown) => warn('action poll failed', e));
  };

  /**
   * Synchronous (IndexedDB opens on first use): a page left right after init() can already send.
   * With the Web Locks that keep one device id across the tabs (browser/device-id.ts) where the id is
   * stored: storage `browser` and consent granted. Held in memory (pending, `memory`) every page is a
   * visitor of its own, and after an opt-out a new tab must not take up the id another tab still holds.
   */
  const browserDeps = (o: InitOptions, cfg: Settings): [Deps, LockManager | undefined] => {
    const memory = cfg.storage === 'memory';
    const shared = sharedStore(memory);
    const durable = () => (memory ? memoryStore() : fallbackStore(idbStore(`evp:${cfg.appId}`), warn));
    // `memory` holds everything back as pending consent does, for good.
    const consent = memory ? 'pending' : (shared.get<Consent>(consentKeyOf(cfg.appId)) ?? cfg.consent ?? 'granted');
    // Cookieless until the user chose: while consent is pending, nothing is written to the device.
    const held = consent === 'pending' ? heldStores(shared, durable) : undefined;
    return [
      {
        clock: browserClock,
        store: held?.store ?? durable(),
        shared: held?.shared ?? shared,
        transport: fetchTransport(o.sdkKey),
        exclusive: webLock,
        random: Math.random,
        warn,
        debug,
        keep: memory ? undefined : held?.keep,
      },
      consent === 'granted' ? navigator.locks : undefined,
    ];
  };

  const api: Evp = {
    init(options) {
      if (typeof document === 'undefined') return;
      if (started) return warn('init twice: ignored');
      started = true;
      if (!options?.sdkKey || !options.apiUrl) {
        settle_(Promise.resolve(undefined));
        return warn('init needs sdkKey and apiUrl');
      }
      const cfg = settle(options, location.hostname);
      // A bot's page keeps nothing on the device and pulls nothing; what it records is counted, not kept.
      if (cfg.filterBots && isBot(navigator.userAgent, navigator.webdriver)) {
        Object.assign(cfg, { bot: true, storage: 'memory', nudges: false });
        warn('bot: off (filterBots)');
      }
      const [deps, locks] = browserDeps(options, cfg);
      const start = Date.now();
      let c: Client | undefined;
      let away!: (close: boolean) => void;
      const make = () => {
        // Every part's <script> carries the page's CSP nonce (the nonce option).
        if (!c) away = attach((c = new Client(cfg, deps, ((n: keyof Parts) => load(n, cfg.nonce)) as Load, hooks)), () => poll(c!), start);
        return c;
      };
      // A visitor who leaves before the client is made (the device id's lock below is asynchronous)
      // gets it made at once, so the landing page view goes out in this task like any leave.
      const early = (e: Event) => {
        if (c || (e.type !== 'pagehide' && document.visibilityState !== 'hidden')) return;
        make();
        away(e.type === 'pagehide');
      };
      addEventListener('pagehide', early);
      document.addEventListener('visibilitychange', early);
      settle_(
        (async () => {
          // Two tabs of a first visit make one device id (browser/device-id.ts).
          await oneDeviceId(`evp:${cfg.appId}:d`, deps.shared, () => make().deviceId, locks);
          const client = make();
          // The optional parts the app switched on, loaded now (they watch or read the page from the start).
          if (cfg.captureErrors) client.load('errors').then((run) => run(client), warn);
          if (cfg.context) client.load('context').then((run) => run(client), warn);
          if (cfg.webVitals) client.load('vitals').then((run) => run(client), warn);
          poll(client);
          void client.flush();
          return client;
        })().catch((e: unknown) => {
          warn('init failed', e);
          return undefined;
        }),
      );
    },
    track: withClient(undefined, (c, name: string, props: object, meta?: unknown) => c.record(name, { ...props }, meta)),
    trackCustom: withClient(undefined, (c, name: string, values?: Record<string, unknown>) => c.record('custom', { name }, values)),
    identify: withClient(undefined, async (c, action: IdentifyAction, userId: string, userProps?: object, extra?: IdentifyExtra) => {
      await c.identify(action, userId, userProps as Record<string, unknown>, extra);
      // A new user may have actions waiting.
      if (action === 'login' || action === 'register') poll(c);
    }),
    catalog: withClient(undefined, (c, kind: string, record: object) => c.catalog(kind, { ...record })),
    flush: withClient(undefined, (c) => c.flush(false, true)),
    reset: () => void ready.then((c) => c?.reset()),
    setConsent: withClient(undefined, (c, consent: Consent) => c.setConsent(consent)),
    optOut: withClient(undefined, (c) => c.setConsent('denied')),
    setUserToken: withClient(undefined, (c, token: string) => {
      // Anything but a string (an app's bug) would make every upload fail: ignored.
      if (typeof token === 'string') c.token = token;
      return c.uploader.retryNow();
    }),
    onUserTokenExpired(renew) {
      hooks.renew = renew;
    },
    fetchActions: withClient([] as Action[], async (c, q: ActionQuery) => (await c.actions()).fetchActions(q)),
    onAction(handler) {
      handlers.push(handler);
      return () => {
        const i = handlers.indexOf(handler);
        if (i >= 0) handlers.splice(i, 1);
      };
    },
    showInAppMessage: withClient(false, async (c, screen: string) => (await c.actions()).showFor(screen)),
    respond: withClient(undefined, async (c, action: Action, response: ActionResponse) => (await c.actions()).respond(action, response)),
    status: withClient(undefined as Status | undefined, (c) => c.status()),
    register: withClient(undefined, (c, props: Record<string, unknown>) => void Object.assign(c.globals, props)),
    unregister: withClient(undefined, (c, name: string) => void delete c.globals[name]),
  };
  // The synchronous functions (the others are withClient's, which catch for themselves).
  api.init = guard(warn, 'init', api.init, undefined);
  api.reset = guard(warn, 'reset', api.reset, undefined);
  api.onAction = guard(warn, 'onAction', api.onAction, () => undefined);
  return api;
}
