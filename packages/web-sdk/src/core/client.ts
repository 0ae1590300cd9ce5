import type { Actions } from '../parts/actions';
import type { readContext } from '../parts/context';
import type { splitBatch } from '../parts/split';
import type { watchErrors } from '../parts/errors';
import type { watchVitals } from '../parts/vitals';
import type { ActionEvent } from './actions';
import type { Consent, OutgoingEvent, Settings } from './options';
import { ACTION, type Deps, type SendResult } from './ports';
import { BATCH, batchBody, batchOf, keyAt, Queue, utf8Bytes, type Batch, type Queued } from './queue';
import { Sessions, sessionId } from './session';
import { isoUtc, localTime, tzOf } from './time';
import { tokenRefused, Uploader } from './uploader';

export const SDK_VERSION = '0.1.0';

/** The in-app message renderer, loaded only when a message is shown (src/messages). */
export interface Renderer {
  /** `cta` and `close` are the labels of the call to action and of the close button (InitOptions.labels). */
  render: (view: { title: string; body: string; cta: string; close: string }, on: { open: () => void; discard: () => void }) => void;
}

/** The lazily loaded parts (own files in the script build, chunks in the ESM build), each with its own size budget. */
export interface Parts {
  messages: Renderer;
  actions: typeof Actions;
  errors: typeof watchErrors;
  context: typeof readContext;
  vitals: typeof watchVitals;
  split: typeof splitBatch;
}

/** Loads a part (`nonce`: the CSP nonce of the `<script>` the script build adds). */
export type Load = <K extends keyof Parts>(name: K, nonce?: string) => Promise<Parts[K]>;

/** What the app hands the library before or after init: its action callbacks and its user token renewal. */
export interface AppHooks {
  handlers: ((e: ActionEvent) => void)[];
  renew?: () => Promise<string>;
}

/** Ids the platform treats as anonymous visitors (no user token needed, docs/keys.md). */
const ANON = 'anon:';

/** Which prop is an event's `property` (spec 2.1: "the action, or a page title"): `action` when the event has one, else this. */
const PROPERTY_OF: Record<string, string> = {
  page: 'path',
  search: 'query',
  rate: 'type',
  nudge_response: 'response',
  module_selection: 'type',
  checkout: 'id',
  cancel_checkout: 'type',
  item_request: 'item_name',
  item_verification: 'scan_type',
  level: 'module_id',
  message: 'type',
  group: 'type',
  receipt: 'type',
  custom: 'name',
};

/** The event's `property`: a non-empty string, whatever the props hold. */
function propertyOf(name: string, props: Record<string, unknown>): string {
  const v = props.action ?? props[PROPERTY_OF[name] ?? ''];
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : name;
}

/** Shared-store keys below the app's prefix: device id, user, consent choice, session, leave batches. */
const DEVICE = 'd';
const USER = 'u';
const CONSENT = 'c';
/** The shared-store key of an app's consent choice (read before the client exists, to know whether storage may be used). */
export const consentKeyOf = (appId: string) => `evp:${appId}:${CONSENT}`;
const SESSION = 's';
const LEFT = 'L';
/** The visit's attribution (the `context` part keeps it for the session: parts/context.ts names the same key). */
const ATTRIBUTION = 'A';

/** The responses an app reports for an action it handled itself (nudge_response `response`, spec 6). */
export type ActionResponse = 'open' | 'discard' | 'error';

export type IdentifyAction = 'register' | 'login' | 'logout' | 'blocked' | 'unblocked';

/** The IANA time zone (the user catalog's `timezone`), else UTC. */
const tzName = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';

/**
 * The library without the browser: recording, sessions, consent, the queue and its uploader, the
 * action pull and feedback. src/browser wires it to the page (automatic events, unload delivery).
 */
export class Client {
  readonly queue: Queue;
  readonly uploader: Uploader;
  readonly sessions: Sessions;
  /** Events recorded while consent is pending: memory only, stored when it is granted. */
  private pending: Queued[] = [];
  /** Writes not yet stored: a flush waits for them, so an event recorded on pagehide leaves with it. */
  private readonly inflight = new Set<Promise<void>>();
  /** While the page goes away (leave()): what is recorded is collected here and sent in the same task. */
  private leaving: Queued[] | undefined;
  /** register(): properties every later event of this page carries in its `meta`. */
  readonly globals: Record<string, unknown> = {};
  /** The device and attribution context (the `context` part), sent as `internal.context` in every envelope. */
  context: Record<string, string> | undefined;
  /** Events beforeSend or the bot filter dropped since the page loaded. */
  filtered = 0;
  /** The signed-in user's token (init, identify, setUserToken, renewal): memory only, sent on every upload and pull. */
  token: string | undefined;
  private renewing: Promise<boolean> | undefined;
  private part: Promise<Actions> | undefined;
  /** The anonymous visitor's id (`anon:…`), stored in the shared store; a tab's lock carries it too (browser/device-id.ts). */
  readonly deviceId: string;
  private readonly p: string;

  constructor(
    readonly cfg: Settings,
    readonly deps: Deps,
    readonly load: Load,
    /** Owned by the public API, which takes them before init finished. */
    readonly app: AppHooks = { handlers: [] },
  ) {
    this.p = `evp:${cfg.appId}:`;
    this.token = cfg.userToken;
    // The anonymous visitor is `anon:…` (the platform's mark for ids that need no user token); an
    // id stored before that prefix existed gets it.
    const d = deps.shared.get<string>(this.p + DEVICE);
    this.deviceId = d?.startsWith(ANON) ? d : ANON + (d ?? `${Math.floor(deps.random() * 2 ** 52).toString(36)}${deps.clock.now().toString(36)}`);
    if (d !== this.deviceId) deps.shared.set(this.p + DEVICE, this.deviceId);
    this.sessions = new Sessions(deps.shared, this.p + SESSION);
    this.queue = new Queue(deps.store, () => ({ maxEvents: cfg.maxQueueEvents, maxBytes: cfg.maxQueueBytes, maxAgeMs: cfg.maxEventAgeMs }), deps.random);
    this.uploader = new Uploader(
      deps,
      this.queue,
      {
        apiUrl: cfg.apiUrl,
        lock: `${this.p}upload`,
        prefix: this.p,
        onAccepted: cfg.debug ? (id) => void this.actions().then((a) => a.verdict(id)) : undefined,
        token: () => this.token,
        split: () => this.load('split'),
      },
      (group) => this.envelope(group),
      (url, body) => this.send(url, body),
    );
  }

  /** The user's choice (setConsent, remembered), else the init option (never stored: it is the app's default, not a choice). */
  get consent(): Consent {
    return this.deps.shared.get<Consent>(this.p + CONSENT) ?? this.cfg.consent ?? 'granted';
  }

  /** The shared-store key of the consent choice (another tab's change arrives as a `storage` event for it). */
  get consentKey(): string {
    return consentKeyOf(this.cfg.appId);
  }

  /** The identified user, else the anonymous device id. */
  get user(): string {
    return this.deps.shared.get<string>(this.p + USER) ?? this.deviceId;
  }

  /** The action part (pull, kept actions, messages, respond), loaded once on first use. */
  actions(): Promise<Actions> {
    return (this.part ??= this.load('actions').then(
      (A) => new A(this),
      (e: unknown) => {
        this.part = undefined;
        throw e;
      },
    ));
  }

  /**
   * POSTs with the SDK key and the user token. A call for a signed-in user with no token asks the
   * app for one first (onUserTokenExpired), and a call the platform refuses for its token
   * (`user_token_*`: expired, required, invalid, another user's) is sent once more with a renewed
   * one: nothing is lost while a token is renewed (an upload refused for its token stores nothing).
   */
  async send(url: string, body: string): Promise<SendResult> {
    if (this.token === undefined && !this.user.startsWith(ANON)) await this.renewToken();
    const res = await this.deps.transport.post(url, body, false, this.token);
    return tokenRefused(res) && (await this.renewToken()) ? this.deps.transport.post(url, body, false, this.token) : res;
  }

  /** Asks the app for a new token, one request at a time for every caller; answers whether one came. */
  renewToken(): Promise<boolean> {
    // Called in a then: none, anything but a function, or one that throws, answers no token (never a throw).
    return (this.renewing ??= Promise.resolve()
      .then(this.app.renew)
      .then(
        (t) => {
          if (typeof t !== 'string' || t === '') return false;
          this.token = t;
          this.log('user token renewed');
          return true;
        },
        (e: unknown) => (this.deps.warn('onUserTokenExpired failed', e), false),
      )
      .finally(() => (this.renewing = undefined)));
  }

  /** Debug mode's log of what the library does. */
  log(message: string, detail?: unknown): void {
    if (this.cfg.debug) this.deps.debug(message, detail);
  }

  /** One envelope (spec 2.1 current form) of events of one user, session and tz; s_id ends at its last event. */
  envelope(group: Queued[]): string {
    const { u = '', s = 0, z = 0 } = group[0] ?? {};
    const last = group.reduce((m, q) => Math.max(m, q.at), s);
    const c = this.cfg;
    return JSON.stringify({
      id: u,
      tz: tzOf(z),
      internal: {
        s_id: sessionId(u, s, c.upload === 'immediate' ? 0 : last),
        sdk: `web/${SDK_VERSION}`,
        a_id: c.appId,
        a_ver: c.appVersion,
        d_id: this.deviceId,
        os: 'web',
        context: this.context,
      },
      data: group.map((q) => q.e),
    });
  }

  /**
   * Records one event: stored before the promise resolves (IndexedDB, or memory while consent is
   * pending), uploaded with its batch. `as` logs it under another user's session (feedback on an
   * action pulled for a user who has since logged out).
   */
  async record(name: string, props: Record<string, unknown>, meta?: unknown, as?: { user: string; start: number }): Promise<void> {
    const consent = this.consent;
    if (consent === 'denied') return;
    const now = this.deps.clock.now();
    const user = as?.user ?? this.user;
    const start = as && as.user !== this.user ? as.start : this.sessions.touch(user, now).start;
    const z = this.deps.clock.offset(now);
    // Global properties join an object meta (or are the meta); another meta stays as it is.
    const m = Object.keys(this.globals).length > 0 && (meta === undefined || typeof meta === 'object') ? { ...this.globals, ...(meta as object) } : meta;
    let e: OutgoingEvent = { time: localTime(now, z), __ol: this.online(), name, property: propertyOf(name, props), ctx: props };
    if (m !== undefined) e.meta = m;
    try {
      const out = this.cfg.beforeSend ? this.cfg.beforeSend(e) : e;
      if (!out) {
        this.filtered += 1;
        return this.log(`beforeSend dropped ${name}`);
      }
      e = out;
    } catch (err) {
      this.deps.warn('beforeSend threw: event kept', err);
    }
    const item: Queued = { at: now, n: utf8Bytes(JSON.stringify(e)), p: 'log', u: user, s: start, z, e };
    this.log(`recorded ${name}`, e);
    await this.enqueue(item, consent);
  }

  /** Catalog records (spec 2.4) go to `POST {apiUrl}/ingest/catalog/{kind}`, batched like events. */
  async catalog(kind: string, record: Record<string, unknown>): Promise<void> {
    const consent = this.consent;
    if (consent === 'denied') return;
    const now = this.deps.clock.now();
    await this.enqueue({ at: now, n: utf8Bytes(JSON.stringify(record)), p: `catalog/${encodeURIComponent(kind)}`, e: record }, consent);
  }

  private async enqueue(item: Queued, consent: Consent): Promise<void> {
    if (this.cfg.bot) {
      this.filtered += 1;
      return;
    }
    if (consent === 'pending') {
      // Held in memory under the queue's count bound: the oldest go first, counted.
      this.pending.push(item);
      if (this.pending.length > this.cfg.maxQueueEvents) {
        this.pending.shift();
        this.queue.dropped += 1;
      }
      return;
    }
    if (this.leaving && item.p === 'log') {
      this.leaving.push(item);
      return;
    }
    const w = this.queue.add(item);
    this.inflight.add(w);
    try {
      await w;
    } finally {
      this.inflight.delete(w);
    }
    if (this.cfg.upload === 'immediate') await this.flush();
  }

  online(): boolean {
    return globalThis.navigator?.onLine !== false;
  }

  /**
   * Uploads what is queued (while the page unloads: with keepalive, and leave batches stay where
   * they are). `wait` (the app's flush()): also when another tab holds the upload lock, after it.
   */
  async flush(unload = false, wait = false): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    if (this.consent !== 'granted') return;
    if (!unload) await this.adoptLeft();
    await this.uploader.flush(unload, wait);
  }

  /**
   * What the page logs while it goes away (`fn`: the page view, app background or close) leaves in
   * this very task, not after the queue's asynchronous work (IndexedDB, the lock), which a closing
   * tab often does not live to finish: frozen into one batch, sent with a keepalive fetch (a beacon
   * where that is missing or refused), and kept in the synchronous store until the platform answers
   * 2xx. The next visit's queue adopts a batch still kept and sends the same bytes again, which the
   * platform's deterministic event ids absorb.
   */
  leave(fn: () => void): void {
    const items: Queued[] = [];
    this.leaving = items;
    try {
      fn();
    } finally {
      this.leaving = undefined;
    }
    if (items.length === 0) return;
    const now = this.deps.clock.now();
    const key = keyAt(BATCH, now, this.deps.random());
    const batch = batchOf(items, (g) => this.envelope(g));
    this.deps.shared.set(this.p + LEFT, [...this.left(), [key, batch]]);
    this.log(`leaving: ${items.length} sent`);
    void this.deps.transport.post(`${this.cfg.apiUrl}/ingest/log`, batchBody(batch, isoUtc(now)), true, this.token).then(async (res) => {
      if (res.status < 200 || res.status >= 300) return;
      this.forgetLeft([key]);
      await this.queue.remove(key);
    });
  }

  private left(): [string, Batch][] {
    return this.deps.shared.get<[string, Batch][]>(this.p + LEFT) ?? [];
  }

  private forgetLeft(keys: string[]): void {
    const rest = this.left().filter(([k]) => !keys.includes(k));
    if (rest.length > 0) this.deps.shared.set(this.p + LEFT, rest);
    else this.deps.shared.del(this.p + LEFT);
  }

  /** Moves leave batches into the queue (under their keys: adopting one twice stores it once). */
  private async adoptLeft(): Promise<void> {
    const left = this.left();
    for (const [k, b] of left) await this.queue.keep(k, b);
    if (left.length > 0) this.forgetLeft(left.map(([k]) => k));
  }

  /** Login or register changes the user (a new session); logout goes back to the anonymous device id. */
  setUser(user: string | undefined): void {
    if (user === undefined) this.deps.shared.del(this.p + USER);
    else this.deps.shared.set(this.p + USER, user);
  }

  /** The user's choice, remembered; it wins over the init option on later visits. */
  async setConsent(c: Consent): Promise<void> {
    // Anything else stored would hold every upload back for good (an app's bug): refused.
    if (!['pending', 'granted', 'denied'].includes(c)) throw TypeError(c);
    this.deps.shared.set(this.p + CONSENT, c);
    this.log(`consent ${c}`);
    await this.consentChanged();
  }

  /**
   * Applies the consent in force, set in this tab or another (a `storage` event): granted stores the
   * events this tab held and uploads; denied forgets what the library keeps on the device (queue,
   * action records, user, device id, session), all but the choice itself.
   */
  async consentChanged(): Promise<void> {
    const c = this.consent;
    if (c !== 'pending') await this.deps.keep?.();
    if (c === 'denied') {
      this.pending = [];
      await this.queue.clear();
      const actions = await this.deps.store.list(ACTION);
      if (actions.length > 0)
        await this.deps.store.write(
          [],
          actions.map(([k]) => k),
        );
      for (const k of [USER, DEVICE, SESSION, LEFT, ATTRIBUTION]) this.deps.shared.del(this.p + k);
    } else if (c === 'granted') {
      const held = this.pending;
      this.pending = [];
      for (const q of held) await this.queue.add(q);
      await this.flush();
    }
  }

  /**
   * Identify (spec 4.3): register and login switch to the user (a new session); logout is logged
   * under the user, then the library goes back to the anonymous device id (a new session); blocked
   * and unblocked carry `blocked`. User properties update the user catalog as a record of their own
   * (`POST /ingest/catalog/user`, with the browser's time zone unless given): on the identify event
   * the platform would keep them but warn `unknown_property`.
   */
  async identify(action: IdentifyAction, userId: string, userProps?: Record<string, unknown>, opts?: Record<string, unknown>): Promise<void> {
    const { token: given, ...extra } = opts ?? {};
    // A user id or token that is no string (an app's bug) would break every later upload: refused.
    if (typeof userId !== 'string') throw TypeError('userId');
    const token = typeof given === 'string' ? given : undefined;
    // A user switch also switches tokens: the last one was another user's.
    if (action === 'register' || action === 'login') {
      this.setUser(userId);
      this.token = token;
    } else if (token !== undefined) this.token = token;
    const start = this.sessions.current()?.start ?? this.deps.clock.now();
    await this.record('identify', { action, ...extra }, undefined, { user: userId, start });
    if (userProps) await this.catalog('user', { id: userId, timezone: tzName(), ...userProps });
    if (action === 'logout') this.reset();
  }

  /** Forgets the user and the session (a shared device's "log out and forget"); the device id stays. */
  reset(): void {
    this.setUser(undefined);
    this.token = undefined;
    this.sessions.end();
  }

  status() {
    return {
      user: this.user,
      consent: this.consent,
      uploads: this.uploader.state,
      dropped: this.queue.dropped,
      refused: this.uploader.refused,
      filtered: this.filtered,
      bot: !!this.cfg.bot,
    };
  }
}
