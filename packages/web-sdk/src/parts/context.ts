/// <reference lib="dom" />
import type { Client } from '../core/client';

const UTM = ['source', 'medium', 'campaign', 'term', 'content'];

/**
 * The `context` part (lazily loaded: `web-context.js` / an ESM chunk): the device and the page's
 * attribution, read once at init and sent in every envelope this page uploads as `internal.context`
 * (docs/data-contract.md, "Client context"). The landing URL is the page's origin and path only: its
 * query and hash (which may hold what a user searched for, or a patient id) never leave the device;
 * the UTM parameters are read from the query one by one.
 */
export function readContext(c: Client): void {
  const q = new URLSearchParams(location.search);
  const ctx: Record<string, string> = {
    user_agent: navigator.userAgent,
    locale: navigator.language,
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    screen: `${screen.width}x${screen.height}`,
    viewport: `${innerWidth}x${innerHeight}`,
    landing_url: location.origin + location.pathname,
  };
  if (document.referrer) ctx.referrer = document.referrer;
  for (const k of UTM) {
    const v = q.get(`utm_${k}`);
    if (v) ctx[`utm_${k}`] = v;
  }
  c.context = ctx;
}
