import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Analytics, Block } from '@evp/core';
import {
  catalogToAvro,
  type ActionLogEntry,
  type CanonicalCatalogRecord,
  type CanonicalEvent,
  type CustomCatalogRecord,
  type RejectedRecord,
} from '@evp/schemas';
import { useMigratedChdb } from '@evp/testkit';
import { actionLogRow, catalogRow, customCatalogRow, eventRow, rejectedRow } from './rows';
import { pageEvent, rejectedRecord } from '../testing';

// The example queries of docs/analytics.md, run as written against rows made by the sink's own
// mapping, with exact results. Every row is inserted twice (as a re-delivery would), so the
// queries are also checked to be duplicate-proof.
const doc = readFileSync(resolve(__dirname, '../../../../docs/analytics.md'), 'utf8');
const queries = new Map([...doc.matchAll(/```sql\n-- name: (\w+)\n([\s\S]*?)```/g)].map((m) => [m[1] as string, m[2] as string]));

const chdb = useMigratedChdb('docs');
let analytics: Analytics;
const at = (iso: string) => Date.parse(`${iso}Z`);
const range = { from: '2024-03-01 00:00:00.000', to: '2024-03-03 00:00:00.000' };

let n = 0;
const ev = (app: string, user: string, block: Block, name: string, time: string, props: Record<string, unknown>): CanonicalEvent => ({
  ...pageEvent,
  event_id: `ev-${n++}`,
  app_id: app,
  user_id: user,
  block,
  name,
  property: null,
  time: at(time),
  props,
});
const page = (app: string, user: string, time: string) => ev(app, user, 'core', 'page', time, pageEvent.props);
const cart = (user: string, action: string, time: string) =>
  ev('shop', user, 'e_commerce', 'cart', time, { id: `c-${user}`, action, cart_price: 9.5, currency: 'KES', item: { id: 'i1' } });
const checkout = (user: string, ok: boolean, time: string) =>
  ev('shop', user, 'e_commerce', 'checkout', time, {
    id: `o-${user}`,
    cart_id: `c-${user}`,
    cart_price: 9.5,
    currency: 'KES',
    items: [{ id: 'i1' }],
    is_successful: ok,
  });
const nudge = (user: string, ref: string, response: string, time: string) =>
  ev('shop', user, 'core', 'nudge_response', time, { ref, time: '2024-03-01T08:00:00Z', response });
const encounter = (patient: string, time: string) =>
  ev('clinic', 'hcw-1', 'patient_mgmt', 'encounter', time, { patient_id: patient, site_id: 's1', action: 'add', type: 'screening' });

const events: CanonicalEvent[] = [
  page('shop', 'u1', '2024-03-01T08:00:00'),
  page('shop', 'u2', '2024-03-01T08:10:00'),
  page('shop', 'u3', '2024-03-01T08:20:00'),
  page('shop', 'u1', '2024-03-02T08:00:00'),
  page('shop', 'u2', '2024-03-02T08:00:00'),
  page('clinic', 'u9', '2024-03-01T07:00:00'),
  // Funnel: u1 converts; u2's checkout failed; u3 never added to a cart; u4 only removed an item;
  // u5 checked out more than a day after adding.
  cart('u1', 'add_item', '2024-03-01T10:00:00'),
  checkout('u1', true, '2024-03-01T10:05:00'),
  cart('u2', 'add_item', '2024-03-01T11:00:00'),
  checkout('u2', false, '2024-03-01T11:05:00'),
  checkout('u3', true, '2024-03-01T12:00:00'),
  cart('u4', 'remove_item', '2024-03-01T12:30:00'),
  cart('u5', 'add_item', '2024-03-01T09:00:00'),
  checkout('u5', true, '2024-03-02T10:00:00'),
  // Nudges: inv 101 has actions 1 and 2, inv 102 action 7. u3 reported `shown` twice.
  nudge('u1', '101:1', 'shown', '2024-03-01T13:00:00'),
  nudge('u1', '101:1', 'open', '2024-03-01T13:01:00'),
  nudge('u2', '101:1', 'shown', '2024-03-01T13:00:00'),
  nudge('u2', '101:1', 'discard', '2024-03-01T13:02:00'),
  nudge('u3', '101:1', 'shown', '2024-03-01T13:00:00'),
  nudge('u3', '101:1', 'shown', '2024-03-01T13:05:00'),
  nudge('u1', '101:2', 'shown', '2024-03-01T14:00:00'),
  nudge('u1', '101:2', 'open', '2024-03-01T14:01:00'),
  nudge('u2', '102:7', 'shown', '2024-03-01T15:00:00'),
  nudge('u2', '102:7', 'block', '2024-03-01T15:01:00'),
  // Encounters: p-3 has no catalog record.
  encounter('p-1', '2024-03-01T08:00:00'),
  encounter('p-1', '2024-03-02T09:00:00'),
  encounter('p-2', '2024-03-01T10:00:00'),
  encounter('p-3', '2024-03-01T11:00:00'),
];

const rejected: RejectedRecord[] = [
  { ...rejectedRecord, app_id: 'shop', rejection_id: 'r1' },
  { ...rejectedRecord, app_id: 'shop', rejection_id: 'r2', errors: [{ path: '$.data[1].ctx.rate_value', rule: 'range', message: 'must be at most 5' }] },
  {
    ...rejectedRecord,
    app_id: 'shop',
    rejection_id: 'r3',
    kind: 'envelope_violation',
    errors: [{ path: '$.internal', rule: 'required', message: 'internal is required' }],
    event_count: 5,
    envelope_index: 0,
    event_index: null,
    event_name: null,
  },
];

const patient = (id: string, receivedAt: number, country: string): CanonicalCatalogRecord => ({
  app_id: 'clinic',
  id,
  kind: 'patient',
  received_at: receivedAt,
  request_id: `r${receivedAt}`,
  record: { id, country },
  extra: null,
});
// The action log of the nudges above: 101:1 (one-off, tags promo and cart) for u1–u4, u4 never
// pulled it; 101:2 (cached, tag reminder) for u1; 102:7 (cached, tag promo) for u2, who blocked it.
const logEntry = (kind: ActionLogEntry['kind'], user: string, inv: number, act: number, when: string, tags: string[] = []): ActionLogEntry => ({
  entry_id: `${kind}-${user}-${inv}:${act}`,
  kind,
  app_id: 'shop',
  user_id: user,
  inv_id: inv,
  action_id: act,
  at: at(when),
  created_at: at('2024-03-01T12:00:00'),
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: act === 1 ? 'one-off' : 'cached',
  expired_at: at('2024-03-02T12:00:00'),
  tags: kind === 'created' || kind === 'capped' ? tags : [],
  attr: {},
  source: kind === 'created' || kind === 'capped' ? 'api' : '',
  reason: kind === 'capped' ? (user === 'u1' ? 'campaign_cap' : 'app_cap') : '',
  available_at: null,
});
const actionLog: ActionLogEntry[] = [
  ...['u1', 'u2', 'u3', 'u4'].map((u) => logEntry('created', u, 101, 1, '2024-03-01T12:00:00', ['promo', 'cart'])),
  ...['u1', 'u2', 'u3'].map((u) => logEntry('delivered', u, 101, 1, '2024-03-01T12:30:00')),
  logEntry('expired', 'u4', 101, 1, '2024-03-02T12:00:00'),
  logEntry('created', 'u1', 101, 2, '2024-03-01T12:00:00', ['reminder']),
  logEntry('delivered', 'u1', 101, 2, '2024-03-01T13:30:00'),
  logEntry('created', 'u2', 102, 7, '2024-03-01T12:00:00', ['promo']),
  logEntry('delivered', 'u2', 102, 7, '2024-03-01T14:30:00'),
  logEntry('withdrawn', 'u2', 102, 7, '2024-03-01T15:01:00'),
  // 103:1 was refused by frequency caps: u1's campaign cap, u2's and u3's app cap.
  ...['u1', 'u2', 'u3'].map((u) => logEntry('capped', u, 103, 1, '2024-03-01T12:00:00')),
];

const patients = [patient('p-1', 1_000, 'Kenya'), patient('p-1', 2_000, 'Uganda'), patient('p-2', 1_000, 'Kenya')];
// Records of an app-defined kind as the Unity SDK sends them (every value a string): the sword's
// second version wins; the same id in another kind, and another app's kind, stay out.
const item = (app: string, kind: string, id: string, receivedAt: number, record: Record<string, unknown>): CustomCatalogRecord => ({
  custom: true,
  app_id: app,
  id,
  kind,
  received_at: receivedAt,
  request_id: `r${receivedAt}`,
  record,
});
const items = [
  item('game', 'game_item', 'sword', 1_000, { name: 'Sword', power: '12', rarity: 'epic' }),
  item('game', 'game_item', 'sword', 2_000, { name: 'Sword', power: '14', rarity: 'epic' }),
  item('game', 'game_item', 'shield', 1_000, { name: 'Shield', rarity: 'rare' }),
  item('game', 'level_pack', 'sword', 1_000, { name: 'Sword levels' }),
  item('other', 'game_item', 'axe', 1_000, { name: 'Axe' }),
];

beforeAll(async () => {
  analytics = chdb.analytics;
  // A body the validator could not read (an unreadable upload): one parse_violation.
  const unreadable = rejectedRow({
    ...rejectedRecord,
    app_id: 'shop',
    rejection_id: 'r-unreadable',
    kind: 'parse_violation',
    errors: [{ path: '$', rule: 'json', message: 'Unexpected token x' }],
    payload: 'x',
    received_at: at('2024-03-01T09:00:00'),
    failed_at: at('2024-03-01T09:00:01'),
    envelope_index: null,
    event_index: null,
    event_name: null,
    user_id: null,
  });
  for (let copy = 0; copy < 2; copy++) {
    await analytics.insert('events', events.map(eventRow));
    await analytics.insert('rejected', [...rejected.map(rejectedRow), unreadable]);
    await analytics.insert('actions_log', actionLog.map(actionLogRow));
    await analytics.insert(
      'catalog_patient',
      patients.map((p) => catalogRow(catalogToAvro(p))),
    );
    await analytics.insert(
      'catalog_custom',
      items.map((i) => customCatalogRow(catalogToAvro(i))),
    );
  }
});

const run = (name: string, params: Record<string, unknown>) => {
  const sql = queries.get(name);
  if (!sql) throw new Error(`docs/analytics.md has no query named ${name}`);
  return analytics.query(sql, params);
};

describe('docs/analytics.md example queries', () => {
  it('lists exactly the documented queries', () => {
    expect([...queries.keys()]).toEqual([
      'custom_catalog_kind',
      'daily_active_users',
      'cart_checkout_funnel',
      'nudge_response_rates',
      'action_funnel',
      'capped_by_reason',
      'responded_to_tag',
      'rejected_by_reason',
      'patients_with_encounters',
    ]);
  });

  it('daily active users per app', async () => {
    expect(await run('daily_active_users', range)).toEqual([
      { app_id: 'clinic', day: '2024-03-01', users: 2 },
      { app_id: 'clinic', day: '2024-03-02', users: 1 },
      { app_id: 'shop', day: '2024-03-01', users: 5 },
      { app_id: 'shop', day: '2024-03-02', users: 3 },
    ]);
  });

  it('cart → checkout funnel', async () => {
    expect(await run('cart_checkout_funnel', { app: 'shop', ...range })).toEqual([{ added_to_cart: 3, checked_out: 1, conversion: 0.333 }]);
  });

  it('nudge response rates per inv_id', async () => {
    expect(await run('nudge_response_rates', { app: 'shop', ...range })).toEqual([
      { inv_id: 101, shown: 4, opened: 2, discarded: 1, blocked: 0, open_rate: 0.5 },
      { inv_id: 102, shown: 1, opened: 0, discarded: 0, blocked: 1, open_rate: 0 },
    ]);
  });

  it('what became of the actions of one invocation, with the reactions to them', async () => {
    expect(await run('action_funnel', { app: 'shop', inv: 101 })).toEqual([
      { action_id: 1, created: 4, delivered: 3, withdrawn: 0, expired: 1, shown: 3, opened: 1 },
      { action_id: 2, created: 1, delivered: 1, withdrawn: 0, expired: 0, shown: 1, opened: 1 },
    ]);
    expect(await run('action_funnel', { app: 'shop', inv: 102 })).toEqual([
      { action_id: 7, created: 1, delivered: 1, withdrawn: 1, expired: 0, shown: 1, opened: 0 },
    ]);
  });

  it('campaign actions refused by a frequency cap, per invocation and cap', async () => {
    expect(await run('capped_by_reason', { app: 'shop' })).toEqual([
      { inv_id: 103, reason: 'app_cap', capped: 2, users: 2 },
      { inv_id: 103, reason: 'campaign_cap', capped: 1, users: 1 },
    ]);
  });

  it('users who responded to an action carrying a tag', async () => {
    const users = async (response: string, tag: string) =>
      (await run('responded_to_tag', { app: 'shop', response, tag })).map((r) => (r as { user_id: string }).user_id);
    expect(await users('shown', 'promo')).toEqual(['u1', 'u2', 'u3']);
    expect(await users('open', 'promo')).toEqual(['u1']);
    expect(await users('open', 'reminder')).toEqual(['u1']);
    expect(await users('block', 'promo')).toEqual(['u2']);
    expect(await users('discard', 'reminder')).toEqual([]);
  });

  it('rejected records by reason', async () => {
    expect(await run('rejected_by_reason', { app: 'shop', ...range })).toEqual([
      { kind: 'schema_violation', rule: 'range', rejections: 2, events: 2 },
      { kind: 'envelope_violation', rule: 'required', rejections: 1, events: 5 },
      { kind: 'parse_violation', rule: 'json', rejections: 1, events: 1 },
      { kind: 'schema_violation', rule: 'enum', rejections: 1, events: 1 },
    ]);
  });

  it('the latest records of one app-defined kind', async () => {
    expect(await run('custom_catalog_kind', { app: 'game', kind: 'game_item' })).toEqual([
      { id: 'shield', name: 'Shield', power: null, rarity: 'rare' },
      { id: 'sword', name: 'Sword', power: 14, rarity: 'epic' },
    ]);
  });

  it('latest patient catalog joined with encounters', async () => {
    expect(await run('patients_with_encounters', { app: 'clinic' })).toEqual([
      { patient_id: 'p-1', country: 'Uganda', encounters: 2, last_encounter: '2024-03-02 09:00:00.000' },
      { patient_id: 'p-2', country: 'Kenya', encounters: 1, last_encounter: '2024-03-01 10:00:00.000' },
    ]);
  });
});
