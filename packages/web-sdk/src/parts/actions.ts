import { actionsOf, isExpired, matches, type Action, type ActionEvent, type ActionQuery } from '../core/actions';
import type { Client, Renderer } from '../core/client';
import { ACTION } from '../core/ports';

/**
 * The action side of the library (spec 4.3 "listening for actions"): the SDK pull, one-off actions
 * kept until handled, in-app messages shown with the renderer, nudge_response, and debug mode's
 * verdicts. A lazily loaded part (`web-actions.js` / an ESM chunk), so the core's budget holds the
 * rest; the core loads it on the first pull (at init when `nudges` is on) or an app's action call.
 */
export class Actions {
  private showing = false;
  /** The platform's clock minus the device's (from the last pull answer's `Date`): message expiry is judged on the platform's time. */
  skew = 0;

  constructor(private readonly c: Client) {}

  /** Now on the platform's clock (the device's when no pull was answered yet). */
  now(): number {
    return this.c.deps.clock.now() + this.skew;
  }

  async fetchActions(q: ActionQuery): Promise<Action[]> {
    const c = this.c;
    if (c.consent === 'denied') return [];
    const user = c.user;
    const res = await c.send(`${c.cfg.apiUrl}/action/sdk/pull`, JSON.stringify({ user_id: user, ...q }));
    if (res.status !== 200) {
      c.deps.warn(`action pull answered ${res.status}`, res.body);
      return this.kept(user, q);
    }
    if (res.date !== undefined) this.skew = res.date - c.deps.clock.now();
    const start = c.sessions.current()?.start ?? c.deps.clock.now();
    const fresh = actionsOf(res.body, user);
    // A pull returns a one-off action once: it is kept (with the session it was pulled in) until handled.
    const oneOff = fresh.filter((a) => a.delivery_mode === 'one-off');
    if (oneOff.length > 0)
      await c.deps.store.write(
        oneOff.map((a) => [ACTION + a.time, { a, s: start }]),
        [],
      );
    const kept = await this.kept(user, q);
    const seen = new Set(kept.map((a) => a.time));
    return [...kept, ...fresh.filter((a) => !seen.has(a.time))];
  }

  /** One-off actions pulled for `user` that answer the pull filter `q` and were not handled yet. */
  async kept(user: string, q: ActionQuery): Promise<Action[]> {
    const all = await this.c.deps.store.list<{ a: Action }>(ACTION);
    return all.map(([, v]) => v.a).filter((a) => a.user_id === user && matches(a, q));
  }

  /**
   * nudge_response (spec 6), under the user the action was pulled for; any response but `shown`
   * handles a one-off action (it is not kept any more). Public as respond(): an app that renders an
   * action itself reports what the user did with it.
   */
  async respond(a: Action, response: string, details?: string): Promise<void> {
    const c = this.c;
    const kept = (await c.deps.store.list<{ a: Action; s: number }>(ACTION + a.time))[0]?.[1];
    const props: Record<string, unknown> = { ref: a.ref, time: a.time, response };
    if (details !== undefined) props.details = details;
    await c.record('nudge_response', props, undefined, { user: a.user_id, start: kept?.s ?? c.deps.clock.now() });
    if (response !== 'shown') await c.deps.store.write([], [ACTION + a.time]);
  }

  /**
   * Shows one in-app message: `expired` when its time has passed (on the platform's clock), `error`
   * (with details) when it cannot be shown, else `shown` once, then `open` (the call-to-action: the
   * handlers get it) or `discard`. Answers whether it was shown.
   */
  async show(a: Action): Promise<boolean> {
    const c = this.c;
    if (this.showing) return false;
    if (isExpired(a, this.now())) {
      await this.respond(a, 'expired');
      return false;
    }
    this.showing = true;
    let renderer: Renderer;
    try {
      renderer = await c.load('messages');
    } catch (e) {
      this.showing = false;
      await this.respond(a, 'error', `renderer did not load: ${String(e)}`);
      return false;
    }
    try {
      renderer.render(
        { title: a.content.title, body: a.content.body, cta: a.attr.cta_label ?? c.cfg.labels.open, close: c.cfg.labels.close },
        {
          open: () => {
            this.showing = false;
            void this.respond(a, 'open');
            const e: ActionEvent = { cta_type: a.attr.cta_type, cta_id: a.attr.cta_id, attr: a.attr, action: a };
            for (const h of [...c.app.handlers]) {
              try {
                h(e);
              } catch (err) {
                c.deps.warn('onAction handler threw', err);
              }
            }
          },
          discard: () => {
            this.showing = false;
            void this.respond(a, 'discard');
          },
        },
      );
    } catch (e) {
      this.showing = false;
      await this.respond(a, 'error', `render failed: ${String(e)}`);
      return false;
    }
    await this.respond(a, 'shown');
    return true;
  }

  /** The first kept in-app message for `screen` (attr `screen` equal, or none), pulling first. */
  async showFor(screen: string | undefined): Promise<boolean> {
    const all = await this.fetchActions({ type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
    const a = all.find((x) => x.render_method === 'in_app_message' && (x.attr.screen === undefined || x.attr.screen === screen));
    return a ? this.show(a) : false;
  }

  /** Debug mode: the platform's verdict of an upload (GET /ingest/requests/{id}), logged once it is complete. */
  async verdict(id: string): Promise<void> {
    const c = this.c;
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => c.deps.clock.setTimeout(() => r(undefined), 1000));
      const res = await c.deps.transport.get(`${c.cfg.apiUrl}/ingest/requests/${encodeURIComponent(id)}`);
      if ((res.body as { status?: string } | undefined)?.status === 'complete') {
        c.deps.debug(`verdict ${id}`, res.body);
        return;
      }
    }
  }
}
