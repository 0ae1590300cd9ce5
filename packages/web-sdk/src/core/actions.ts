/** The filters of an SDK pull (spec 4.3 "Fetch actions"; the client-library spellings are accepted too). */
export interface ActionQuery {
  type: 'message' | 'custom' | 'Message' | 'Custom' | 'UIComponent';
  render_method: 'in_app_message' | 'generic_message' | 'push_notification' | 'InAppMessage' | 'InAppComponent';
  delivery_mode: 'one-off' | 'cached' | 'OneOff' | 'Cached';
  attr?: Record<string, string>;
}

/** An action pulled for the user, as the app sees it. */
export interface Action {
  /** `<inv_id>:<action_id>`, sent back as nudge_response `ref`. */
  ref: string;
  /** The action's time value (`internal.ref_time`), sent back as nudge_response `time`; unique per action. */
  time: string;
  type: string;
  render_method: string;
  delivery_mode: string;
  content: { title: string; body: string };
  attr: Record<string, string>;
  tags: string[];
  /** RFC 3339, or undefined for never. */
  expired_at: string | undefined;
  /** The user it was pulled for (its feedback is logged under this user). */
  user_id: string;
}

/** What the action callback receives (spec 4.3 rule 2): cta_type, cta_id and the action's attributes. */
export interface ActionEvent {
  cta_type: string | undefined;
  cta_id: string | undefined;
  attr: Record<string, string>;
  action: Action;
}

interface PullEntry {
  payload?: {
    type?: string;
    render_method?: string;
    delivery_mode?: string;
    content?: { title?: string; body?: string };
    attr?: Record<string, string>;
    tags?: string[];
    internal?: { ref?: string; ref_time?: string; expired_at?: string };
  };
}

/** The pull answer's entries as actions (entries without a ref cannot be answered, so are skipped). */
export function actionsOf(body: unknown, user: string): Action[] {
  const data = (body as { data?: PullEntry[] } | undefined)?.data;
  if (!Array.isArray(data)) return [];
  const out: Action[] = [];
  for (const e of data) {
    const p = e.payload;
    const i = p?.internal;
    if (!p || typeof i?.ref !== 'string' || typeof i.ref_time !== 'string') continue;
    const never = !i.expired_at || i.expired_at.startsWith('0001-01-01');
    out.push({
      ref: i.ref,
      time: i.ref_time,
      type: p.type ?? '',
      render_method: p.render_method ?? '',
      delivery_mode: p.delivery_mode ?? '',
      content: { title: p.content?.title ?? '', body: p.content?.body ?? '' },
      attr: p.attr ?? {},
      tags: p.tags ?? [],
      expired_at: never ? undefined : i.expired_at,
      user_id: user,
    });
  }
  return out;
}

/**
 * A pull filter's value compared in one spelling, the client-library ones too (docs/actions.md):
 * `InAppMessage` = `in_app_message`, `OneOff` = `one-off`; `UIComponent` is `custom`, `InAppComponent` `generic_message`.
 */
const spec = (v: string) => {
  const k = v.toLowerCase().replace(/[^a-z]/g, '');
  return k === 'uicomponent' ? 'custom' : k === 'inappcomponent' ? 'genericmessage' : k;
};

/** Whether an action answers the pull filter `q` (type, render method, delivery mode, attrs). */
export function matches(a: Action, q: ActionQuery): boolean {
  if (spec(a.type) !== spec(q.type) || spec(a.render_method) !== spec(q.render_method) || spec(a.delivery_mode) !== spec(q.delivery_mode)) return false;
  return Object.entries(q.attr ?? {}).every(([k, v]) => a.attr[k] === v);
}

export const isExpired = (a: Action, now: number) => a.expired_at !== undefined && Date.parse(a.expired_at) <= now;
