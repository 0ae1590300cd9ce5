import { SESSION_IDLE_MS, SESSION_MAX_MS } from './options';
import type { SyncStore } from './ports';

export interface Session {
  /** The user the session belongs to. */
  user: string;
  /** Start, epoch ms (the middle part of s_id). */
  start: number;
  /** Last activity, epoch ms. */
  last: number;
}

/**
 * The one session of the app in this browser, shared by every tab through the synchronous store
 * (localStorage): a tab that logs an event continues the session another tab started. A new session
 * starts after 30 minutes without activity, after 24 hours, and whenever the user changes.
 */
export class Sessions {
  constructor(
    private readonly shared: SyncStore,
    private readonly key: string,
  ) {}

  /** The session an event at `now` by `user` belongs to (starting one when a rule says so), marked active. */
  touch(user: string, now: number): Session {
    const s = this.shared.get<Session>(this.key);
    const fresh = !s || s.user !== user || now - s.last > SESSION_IDLE_MS || now - s.start > SESSION_MAX_MS || now < s.start;
    const next: Session = fresh ? { user, start: now, last: now } : { ...s, last: Math.max(s.last, now) };
    this.shared.set(this.key, next);
    return next;
  }

  current(): Session | undefined {
    return this.shared.get<Session>(this.key);
  }

  end(): void {
    this.shared.del(this.key);
  }
}

/** `<user>_<start>_<end>` (spec 2.1); end is 0 for events uploaded immediately. */
export const sessionId = (user: string, start: number, end: number) => `${user}_${start}_${end}`;
