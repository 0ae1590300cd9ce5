import { contractEvent } from '@evp/segment-language';
import type { InsertedRow } from '../../sink';
import type { StoredCampaign } from '../source';
import type { TriggerItem } from '../trigger-items';

/** The canonical name of an event trigger's event; undefined for other triggers. */
export function triggerEventName(c: StoredCampaign): string | undefined {
  const t = c.document.trigger;
  if (!('event' in t)) return undefined;
  return contractEvent(t.event.event)?.name ?? t.event.event;
}

/**
 * The sink hook's part for campaigns: for each active event-trigger campaign whose event is among
 * the stored rows of its app, `users` items naming those events (at most `perItem` each). Whether an
 * event matches the trigger's `where` is the worker's question (it reads the event back), so the
 * hook stays a scan of names. Each event is its own run (run key `event:<event_id>`); `at` here is
 * the hook's instant and is replaced by each event's time when the worker reads it.
 */
export function eventItems(
  rows: readonly InsertedRow[],
  campaignsOf: (appId: string) => readonly StoredCampaign[],
  perItem: number,
  now: number,
): TriggerItem[] {
  const byApp = new Map<string, InsertedRow[]>();
  for (const r of rows) {
    if (r.event_id === undefined || r.user_id === undefined || r.name === undefined) continue;
    const list = byApp.get(r.app_id);
    if (list) list.push(r);
    else byApp.set(r.app_id, [r]);
  }
  const items: TriggerItem[] = [];
  for (const [appId, events] of byApp) {
    for (const c of campaignsOf(appId)) {
      const name = triggerEventName(c);
      if (name === undefined) continue;
      const users = events.filter((e) => e.name === name).map((e) => ({ user_id: e.user_id as string, event_id: e.event_id as string }));
      for (let i = 0; i < users.length; i += perItem) {
        items.push({ kind: 'users', app_id: appId, campaign_id: c.id, run_key: 'event', trigger: 'event', at: now, users: users.slice(i, i + perItem) });
      }
    }
  }
  return items;
}
