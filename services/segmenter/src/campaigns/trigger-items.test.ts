import type { BusMessage } from '@evp/core';
import { readTriggerItem, triggerMessage, type TriggerItem } from './trigger-items';

const message = (value: Buffer | string): BusMessage => ({
  topic: 'campaigns.triggers',
  partition: 2,
  offset: '5',
  key: 'a:c',
  value: Buffer.isBuffer(value) ? value : Buffer.from(value),
  headers: {},
  timestamp: 0,
});

const problem = (value: unknown) => {
  try {
    readTriggerItem(message(JSON.stringify(value)));
  } catch (err) {
    return `${(err as { kind?: string }).kind}: ${(err as Error).message}`;
  }
  return 'read';
};

describe('campaigns.triggers items from TRIGGER_ITEM_FIELDS', () => {
  it('reads back exactly what triggerMessage wrote; a user without event_id stays without one', () => {
    const items: TriggerItem[] = [
      {
        kind: 'users',
        app_id: 'a',
        campaign_id: 'c',
        run_key: 'api:1',
        trigger: 'event',
        at: 10,
        users: [{ user_id: 'u1', event_id: 'e1' }, { user_id: 'u2' }],
      },
      { kind: 'schedule', app_id: 'a', campaign_id: 'c', run_at: 20 },
    ];
    const read = items.map((i) => readTriggerItem(message(triggerMessage(i).value)));
    expect(read).toEqual(items);
    expect(read[0]?.kind === 'users' && 'event_id' in (read[0].users[1] ?? {})).toBe(false);
  });

  it('names the field that breaks the contract, nested ones by their index', () => {
    const users = { kind: 'users', app_id: 'a', campaign_id: 'c', run_key: 'r', trigger: 'api', at: 1, users: [{ user_id: 'u1' }] };
    expect([
      problem({ ...users, trigger: 'manual' }),
      problem({ ...users, users: [{ user_id: 'u1' }, { user_id: '' }] }),
      problem({ ...users, users: [{ user_id: 'u1', event_id: 7 }] }),
      problem({ kind: 'schedule', app_id: 'a', campaign_id: 'c' }),
    ]).toEqual([
      'invalid: not a campaign trigger item (trigger: manual is not one of segment_entry, event, schedule, api): campaigns.triggers/2/5',
      'invalid: not a campaign trigger item (users[1].user_id: expected a non-empty string): campaigns.triggers/2/5',
      'invalid: not a campaign trigger item (users[0].event_id: expected a string, got number): campaigns.triggers/2/5',
      'invalid: not a campaign trigger item (run_at: expected an integer, got undefined): campaigns.triggers/2/5',
    ]);
  });
});
