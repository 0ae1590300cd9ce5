import type { BusMessage } from '@evp/core';
import { readWorkItem, workMessage, type WorkItem } from './work';

const message = (value: unknown): BusMessage => ({
  topic: 'segments.work',
  partition: 1,
  offset: '7',
  key: 'a:s',
  value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers: {},
  timestamp: 0,
});

const problem = (value: unknown) => {
  try {
    readWorkItem(message(value));
  } catch (err) {
    return `${(err as { kind?: string }).kind}: ${(err as Error).message}`;
  }
  return 'read';
};

describe('segments.work items from WORK_ITEM_FIELDS', () => {
  it('reads back exactly what workMessage wrote, for both kinds', () => {
    const items: WorkItem[] = [
      { kind: 'users', app_id: 'a', segment_id: 's', users: ['u1', 'u2'] },
      { kind: 'full', app_id: 'a', segment_id: 's', requested_at: 1_700_000_000_000 },
    ];
    expect(items.map((i) => readWorkItem({ ...message(''), value: workMessage(i).value }))).toEqual(items);
    // Only the kind's own fields are kept.
    expect(readWorkItem(message({ ...items[0], requested_at: 1 }))).toEqual(items[0]);
  });

  it('says which field breaks the contract (invalid) or that it is not JSON (unreadable)', () => {
    expect([
      problem('{'),
      problem({ kind: 'some', app_id: 'a', segment_id: 's' }),
      problem({ kind: 'users', app_id: '', segment_id: 's', users: [] }),
      problem({ kind: 'users', app_id: 'a', segment_id: 's', users: [1] }),
      problem({ kind: 'full', app_id: 'a', segment_id: 's', requested_at: 'soon' }),
      problem(null),
    ]).toEqual([
      expect.stringMatching(/^unreadable: not JSON: /),
      'invalid: not a segment work item (kind: some is not one of users, full): segments.work/1/7',
      'invalid: not a segment work item (app_id: expected a non-empty string): segments.work/1/7',
      'invalid: not a segment work item (users: expected a list of strings): segments.work/1/7',
      'invalid: not a segment work item (requested_at: expected an integer, got soon): segments.work/1/7',
      'invalid: not a segment work item ($: expected a record): segments.work/1/7',
    ]);
  });
});
