/**
 * The action log (topic `actions.log`, table `actions_log`): what happened to every action of the
 * action store, one entry per step. Written atomically with the step into the store's outbox
 * (docs/actions.md, "The action log"), relayed to Kafka at least once; `entry_id` is derived from
 * the entry's content, so a re-sent entry collapses with its first copy downstream.
 */
export const ACTION_LOG_KINDS = ['created', 'delivered', 'withdrawn', 'expired', 'capped'] as const;
export type ActionLogKind = (typeof ACTION_LOG_KINDS)[number];

export interface ActionLogEntry {
  /** Hash of app, action (inv_id, action_id, user_id, created_at) and kind: the same step always has the same id. */
  entry_id: string;
  kind: ActionLogKind;
  app_id: string;
  user_id: string;
  inv_id: number;
  action_id: number;
  /**
   * Epoch ms of the step, on the store's clock: creation, the pull that delivered it, the block that
   * withdrew it; for `expired`, the action's `expired_at` (the instant it stopped being deliverable,
   * not the later sweep).
   */
  at: number;
  /**
   * Epoch ms the action was created: with (inv_id, action_id, user_id) it names one action even after
   * a re-create past retention. For `capped`, the refusal (equal to `at`): the action never existed.
   */
  created_at: number;
  type: string;
  render_method: string;
  delivery_mode: string;
  /** Epoch ms (whole) at which the action expires; null = never. */
  expired_at: number | null;
  /** `created` and `capped` ([] on the other kinds: join on the created entry). */
  tags: string[];
  /** `created` and `capped` ({} on the other kinds). */
  attr: Record<string, string>;
  /** `created` and `capped`: who asked for the action (`api`, `actions.requested`, or the message's own `source`); '' on the other kinds. */
  source: string;
  /** `capped` only: which frequency cap refused the action, `campaign_cap` or `app_cap`; '' on the other kinds. */
  reason: string;
  /** `created` and `capped`: epoch ms before which no pull returns the action; null = at creation (and on the other kinds). */
  available_at: number | null;
}

export const actionLogEntrySchema = {
  type: 'record',
  name: 'ActionLogEntry',
  namespace: 'evp.actions',
  doc: 'One step of an action of the action store: created, delivered (first pull), withdrawn (block), expired undelivered, or capped (refused by a frequency cap)',
  fields: [
    { name: 'entry_id', type: 'string' },
    { name: 'kind', type: 'string', doc: ACTION_LOG_KINDS.join(', ') },
    { name: 'app_id', type: 'string' },
    { name: 'user_id', type: 'string' },
    { name: 'inv_id', type: 'long' },
    { name: 'action_id', type: 'long' },
    { name: 'at', type: 'long', doc: 'epoch ms; for expired: the expiry instant' },
    { name: 'created_at', type: 'long', doc: 'epoch ms' },
    { name: 'type', type: 'string' },
    { name: 'render_method', type: 'string' },
    { name: 'delivery_mode', type: 'string' },
    { name: 'expired_at', type: ['null', 'long'], default: null, doc: 'epoch ms; null = never' },
    { name: 'tags', type: { type: 'array', items: 'string' }, doc: 'created and capped' },
    { name: 'attr', type: { type: 'map', values: 'string' }, doc: 'created and capped' },
    { name: 'source', type: 'string', doc: "created and capped: api, actions.requested or the message's source" },
    // Added with campaigns; defaults let records written before them decode.
    { name: 'reason', type: 'string', default: '', doc: 'capped only: campaign_cap or app_cap' },
    { name: 'available_at', type: ['null', 'long'], default: null, doc: 'created and capped: epoch ms before which no pull returns it; null = at creation' },
  ],
} as const;
