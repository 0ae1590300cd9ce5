import { memoryStore } from '../../browser/stores';
import { Actions } from '../../parts/actions';
import { splitBatch } from '../../parts/split';
import { Client, type AppHooks, type Load, type Parts, type Renderer } from '../client';
import { settle, type InitOptions } from '../options';
import type { Deps, SendResult, SyncStore } from '../ports';

/** 2026-11-27 03:00:00.000 UTC: the tests' clock starts here. */
export const T0 = Date.UTC(2026, 10, 27, 3, 0, 0);

export function memoryShared(): SyncStore & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return { map, get: <T>(k: string) => map.get(k) as T | undefined, set: (k, v) => void map.set(k, structuredClone(v)), del: (k) => void map.delete(k) };
}

interface Sent {
  url: string;
  body: string;
  unload: boolean;
  /** The user token sent with it (header, or `user_token` on a beacon). */
  token: string | undefined;
}

/**
 * Deps for the unit tests: a clock that moves only when told (timers run on advance), memory
 * stores, and a transport that answers from a script (default 200) and records every request.
 */
export function fakeDeps(shared: SyncStore = memoryShared(), store = memoryStore(), start = T0) {
  let now = start;
  let nextTimer = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const answers: (SendResult | ((url: string, body: string) => SendResult))[] = [];
  const sent: Sent[] = [];
  const warnings: string[] = [];
  const debugged: [string, unknown][] = [];
  const gets: string[] = [];
  const getAnswers: SendResult[] = [];
  const deps: Deps = {
    clock: {
      now: () => now,
      offset: () => 60,
      setTimeout: (fn, ms) => {
        timers.set(nextTimer, { at: now + ms, fn });
        return nextTimer++;
      },
      clearTimeout: (h) => void timers.delete(h as number),
    },
    store,
    shared,
    transport: {
      get: async (url) => {
        gets.push(url);
        return getAnswers.shift() ?? { status: 404 };
      },
      post: async (url, body, unload, token) => {
        sent.push({ url, body, unload, token });
        const a = answers.shift() ?? { status: 200, body: { accepted: 1, request_id: `r${sent.length}` } };
        return typeof a === 'function' ? a(url, body) : a;
      },
    },
    exclusive: (_name, fn) => fn(),
    random: () => 0.5,
    warn: (m) => void warnings.push(m),
    debug: (m, d) => void debugged.push([m, d]),
  };
  return {
    deps,
    sent,
    warnings,
    debugged,
    gets,
    answerGet: (...a: SendResult[]) => void getAnswers.push(...a),
    answer: (...a: (SendResult | ((url: string, body: string) => SendResult))[]) => void answers.push(...a),
    /** Moves the clock, running the timers that come due (in time order). */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
        await settleAll();
      }
      now = end;
    },
    timers,
    get now() {
      return now;
    },
  };
}

/** Lets pending promise chains run (memory stores and fake transports resolve in microtasks). */
export async function settleAll(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

const OPTIONS: InitOptions = { sdkKey: 'sdk_test', apiUrl: 'https://api.example.com/v1/', appId: 'shop.example.com', appVersion: '2.1.0 (21)' };

export function testClient(options: Partial<InitOptions> = {}, f = fakeDeps(), renderer?: Renderer) {
  const hooks: AppHooks = { handlers: [] };
  const load = ((name: keyof Parts) =>
    name === 'actions'
      ? Promise.resolve(Actions)
      : name === 'split'
        ? Promise.resolve(splitBatch)
        : renderer
          ? Promise.resolve(renderer)
          : Promise.reject(new Error('no renderer in this test'))) as Load;
  const client = new Client(settle({ ...OPTIONS, ...options }, 'localhost'), f.deps, load, hooks);
  return { client, handlers: hooks.handlers, hooks, ...f, f };
}

/** The envelopes of a request body (one envelope or an array). */
export const envelopes = (body: string) => {
  const v = JSON.parse(body) as unknown;
  return (Array.isArray(v) ? v : [v]) as { sent_at: string; id: string; tz: string; internal: Record<string, string>; data: Record<string, unknown>[] }[];
};
