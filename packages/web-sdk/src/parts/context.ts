/// <reference lib="dom" />
import type { Client } from '../core/client';

// Literals, not imports: a value imported from the core would make esbuild split a chunk the core
// then loads statically (over its budget). A test checks each against the core's.
/** The shared-store key (below the app's prefix) that client.ts's optOut also clears. */
export const ATTRIBUTION_KEY = 'A';
/** The session's idle limit (options.ts). */
export const IDLE_MS = 30 * 60_000;

const UTM = ['source', 'medium', 'campaign', 'term', 'content'];

/** The visit's attribution as kept in the shared store: when it was last seen, and the fields. */
interface Kept {
  at: number;
  a: Record<string, string>;
}

/**
 * The attribution this page sends: the session's kept one while the session lasts (activity within
 * the idle limit, by the kept record's time or the session's last event) unless this page came from
 * a campaign of its own; else this page's.
 */
export function sessionAttribution(
  kept: Kept | undefined,
  own: Record<string, string>,
  campaign: boolean,
  sessionLast: number,
  now: number,
): Record<string, string> {
  const last = Math.max(kept?.at ?? 0, sessionLast);
  return kept && !campaign && now >= kept.at && now - last <= IDLE_MS ? kept.a : own;
}

/**
 * The `context` part (lazily loaded: `web-context.js` / an ESM chunk): the device and the visit's
 * attribution, read once at init and sent in every envelope this page uploads as `internal.context`
 * (docs/data-contract.md, "Client context"). The landing URL is the page's origin and path only: its
 * query and hash (which may hold what a user searched for, or a patient id) never leave the device;
 * the UTM parameters are read from the query one by one.
 *
 * Attribution (landing URL, referrer, UTM) belongs to the session, not the page: the first page of a
 * session records it in the shared store (memory only while consent is pending), and later pages of
 * the same session send the kept one, so the campaign that brought the visitor travels with every
 * event of the visit. A page with UTM parameters of its own starts a new attribution (a new campaign
 * click); one after 30 minutes without activity too, as the session does.
 */
export function readContext(c: Client): void {
  const q = new URLSearchParams(location.search);
  const own: Record<string, string> = { landing_url: location.origin + location.pathname };
  if (document.referrer) own.referrer = document.referrer;
  let campaign = false;
  for (const k of UTM) {
    const v = q.get(`utm_${k}`);
    if (v) {
      own[`utm_${k}`] = v;
      campaign = true;
    }
  }
  const key = `evp:${c.cfg.appId}:${ATTRIBUTION_KEY}`;
  const now = c.deps.clock.now();
  const a = sessionAttribution(c.deps.shared.get<Kept>(key), own, campaign, c.sessions.current()?.last ?? 0, now);
  c.deps.shared.set(key, { at: now, a });
  c.context = {
    user_agent: navigator.userAgent,
    locale: navigator.language,
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    screen: `${screen.width}x${screen.height}`,
    viewport: `${innerWidth}x${innerHeight}`,
    ...a,
  };
}
