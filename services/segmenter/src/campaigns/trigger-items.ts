import { UnreadableMessageError, type BusMessage, type OutgoingMessage } from '@evp/core';
import { TRIGGER_KINDS, type TriggerKind } from './document';

/**
 * A trigger item on `campaigns.triggers` (JSON, key `app_id:campaign_id`, so one campaign's items
 * keep their order on one partition and its rate limit is one replica's):
 * - `users`: one run of the campaign for these users. `at` (epoch ms) is when the trigger happened:
 *   the outcome rows' `at`, the start of local-time rules and of `expires_after`. A user of an event
 *   trigger names the event (`event_id`); the worker reads its properties back from ClickHouse with
 *   the trigger's `where`, so an event that does not match is no trigger.
 * - `schedule`: the occurrence of a schedule trigger at `run_at` (epoch ms): the worker expands it to
 *   the segment's current members (run key `schedule:<run_at>`).
 */
interface TriggerUser {
  user_id: string;
  /** Event triggers: the inserted event the worker selects with the trigger's `where`. */
  event_id?: string;
}

export type TriggerItem =
  | { kind: 'users'; app_id: string; campaign_id: string; run_key: string; trigger: TriggerKind; at: number; users: TriggerUser[] }
  | { kind: 'schedule'; app_id: string; campaign_id: string; run_at: number };

const triggerKey = (item: TriggerItem) => `${item.app_id}:${item.campaign_id}`;

export const triggerMessage = (item: TriggerItem): OutgoingMessage => ({ key: triggerKey(item), value: Buffer.from(JSON.stringify(item)) });

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function readUsers(v: unknown): TriggerUser[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const users: TriggerUser[] = [];
  for (const u of v as unknown[]) {
    if (u === null || typeof u !== 'object') return undefined;
    const { user_id, event_id } = u as Record<string, unknown>;
    if (!isString(user_id) || (event_id !== undefined && !isString(event_id))) return undefined;
    users.push(event_id === undefined ? { user_id } : { user_id, event_id });
  }
  return users;
}

/** A trigger item from its message; a message that is none is a bug of its producer (UnreadableMessageError: dead-lettered, never retried). */
export function readTriggerItem(m: BusMessage): TriggerItem {
  let v: Record<string, unknown> | undefined;
  try {
    v = JSON.parse(m.value.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UnreadableMessageError('unreadable', `not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (v !== null && typeof v === 'object' && isString(v.app_id) && isString(v.campaign_id)) {
    const users = readUsers(v.users);
    if (v.kind === 'users' && users && isString(v.run_key) && isTime(v.at) && (TRIGGER_KINDS as readonly unknown[]).includes(v.trigger)) {
      return { kind: 'users', app_id: v.app_id, campaign_id: v.campaign_id, run_key: v.run_key, trigger: v.trigger as TriggerKind, at: v.at, users };
    }
    if (v.kind === 'schedule' && isTime(v.run_at)) return { kind: 'schedule', app_id: v.app_id, campaign_id: v.campaign_id, run_at: v.run_at };
  }
  throw new UnreadableMessageError('invalid', `not a campaign trigger item: ${m.topic}/${m.partition}/${m.offset}`);
}
