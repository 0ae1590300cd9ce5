/**
 * Deterministic load: a seeded generator of current-form uploads whose every event carries a marker
 * (`property` = `<tag>:<seq>`), so events are counted one by one in ClickHouse; and a steady-rate
 * sender that records every acknowledged (2xx) request id with the markers it carried.
 */

import { seededRandom } from '@evp/core';

const T0 = Date.UTC(2024, 2, 1);

export interface Upload {
  body: string;
  markers: string[];
}

/**
 * Builds uploads of `size` page events for `tag`; `pad` adds that many characters to each event's
 * title; the uploads cycle through `users` users (64; Infinity: a new user per upload).
 */
export function uploadFactory(tag: string, seed: number, opts: { pad?: number; users?: number } = {}) {
  const rnd = seededRandom(seed);
  let seq = 0;
  let upload = 0;
  const pad = 'x'.repeat(opts.pad ?? 0);
  return (size: number): Upload => {
    const user = `${tag}-u${upload++ % (opts.users ?? 64)}`;
    const start = T0 + seq * 10;
    const markers: string[] = [];
    const data = Array.from({ length: size }, () => {
      const marker = `${tag}:${seq}`;
      markers.push(marker);
      const t = new Date(T0 + seq++ * 10).toISOString().replace('T', ' ').replace('Z', '');
      return {
        time: t,
        __ol: true,
        name: 'page',
        property: marker,
        ctx: { path: `/p/${Math.floor(rnd() * 50)}`, title: `Page${pad}`, duration: Math.round(rnd() * 1000) / 10, render_time: Math.floor(rnd() * 900) },
      };
    });
    const envelope = {
      id: user,
      tz: '+00:00',
      internal: { s_id: `${user}_${start}_0`, a_id: 'faults', sdk: 'android/2.4.1', a_ver: '1.2.3 (45)', d_id: `dev-${user}`, os: 'android' },
      data,
    };
    return { body: JSON.stringify(envelope), markers };
  };
}

export interface SendResult {
  status: number;
  requestId?: string;
  /** When the request left and when its answer (or failure) came, ms since epoch. */
  sentAt: number;
  answeredAt: number;
}

export async function sendUpload(gatewayUrl: string, key: string, body: string, timeoutMs = 15_000): Promise<SendResult> {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${gatewayUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const out = (await res.json().catch(() => ({}))) as { request_id?: string };
    return { status: res.status, requestId: out.request_id, sentAt, answeredAt: Date.now() };
  } catch {
    return { status: 0, sentAt, answeredAt: Date.now() }; // refused, reset or timed out: not acknowledged
  }
}

export interface LoadTally {
  /** Acknowledged request id → its event markers. */
  acked: Map<string, string[]>;
  sentEvents: number;
  ackedEvents: number;
  /** Status → count, for requests not acknowledged (0: no answer). */
  refused: Map<number, number>;
  /** When each ack arrived (ms since epoch), by request id: freshness needs it. */
  ackedAt: Map<string, number>;
  /** Every answer (status 0: none) with its request's send time, in the order they came. */
  answers: { status: number; sentAt: number; answeredAt: number }[];
}

export const emptyTally = (): LoadTally => ({ acked: new Map(), sentEvents: 0, ackedEvents: 0, refused: new Map(), ackedAt: new Map(), answers: [] });

export function record(tally: LoadTally, upload: Upload, r: SendResult) {
  tally.sentEvents += upload.markers.length;
  tally.answers.push({ status: r.status, sentAt: r.sentAt, answeredAt: r.answeredAt });
  if (r.status >= 200 && r.status < 300 && r.requestId) {
    tally.acked.set(r.requestId, upload.markers);
    tally.ackedAt.set(r.requestId, Date.now());
    tally.ackedEvents += upload.markers.length;
  } else tally.refused.set(r.status, (tally.refused.get(r.status) ?? 0) + 1);
}

/**
 * Sends `rate` uploads of `size` events per second until stopped, at most `maxInFlight` at once
 * (a slower gateway lowers the rate rather than piling up sockets).
 */
export function startLoad(opts: {
  gatewayUrl: string;
  key: string;
  tag: string;
  seed: number;
  rate: number;
  size?: number;
  maxInFlight?: number;
  tally?: LoadTally;
  /** Distinct users the uploads cycle through (uploadFactory). */
  users?: number;
  /** Told every answer with when its request started (which fault window it fell in). */
  onResult?: (r: SendResult, startedAt: number) => void;
}) {
  const tally = opts.tally ?? emptyTally();
  const next = uploadFactory(opts.tag, opts.seed, opts.users === undefined ? {} : { users: opts.users });
  const size = opts.size ?? 50;
  const maxInFlight = opts.maxInFlight ?? 256;
  const inFlight = new Set<Promise<void>>();
  const t0 = Date.now();
  let started = 0;
  let stopped = false;
  const tick = () => {
    const due = Math.floor(((Date.now() - t0) / 1000) * opts.rate);
    while (!stopped && started < due && inFlight.size < maxInFlight) {
      started++;
      const upload = next(size);
      const startedAt = Date.now();
      const p: Promise<void> = sendUpload(opts.gatewayUrl, opts.key, upload.body).then((r) => {
        record(tally, upload, r);
        opts.onResult?.(r, startedAt);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    // Behind by more than a second (a slow gateway): skip ahead rather than burst later.
    if (due - started > opts.rate) started = due;
  };
  const timer = setInterval(tick, 10);
  return {
    tally,
    async stop(): Promise<LoadTally> {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return tally;
    },
  };
}
