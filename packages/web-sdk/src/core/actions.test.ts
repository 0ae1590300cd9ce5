import type { Renderer } from './client';
import { memoryStore } from '../browser/stores';
import { envelopes, fakeDeps, memoryShared, T0, testClient } from './testing/fakes';

const entry = (n: number, extra: { attr?: Record<string, string>; expired_at?: string; delivery_mode?: string } = {}) => ({
  user_id: 'alice',
  payload: {
    type: 'message',
    render_method: 'in_app_message',
    delivery_mode: extra.delivery_mode ?? 'one-off',
    content: { title: `Offer ${n}`, body: '<b>10%</b> off paracetamol' },
    attr: extra.attr ?? { screen: 'cart', cta_type: 'add_to_cart', cta_id: 'drug-42' },
    tags: ['promo'],
    internal: {
      inv_id: 4,
      action_id: n,
      expired_at: extra.expired_at ?? '2030-02-01T00:00:00+02:00',
      ref: `4:${n}`,
      ref_time: `2026-11-27T02:00:00.000000Z#4:${n}`,
    },
  },
  error: null,
  queued_at: '2026-11-27T02:00:00.000000Z',
});

/** A renderer that records what it was asked to show and lets the test click. */
function fakeRenderer() {
  const shown: { title: string; body: string; cta: string }[] = [];
  let on: { open: () => void; discard: () => void } | undefined;
  const renderer: Renderer = {
    render: (view, callbacks) => {
      shown.push(view);
      on = callbacks;
    },
  };
  return { renderer, shown, click: () => on!.open(), close: () => on!.discard() };
}

const responses = (t: { sent: { url: string; body: string }[] }): { user: string; response?: unknown; [k: string]: unknown }[] =>
  t.sent
    .filter((s) => s.url.endsWith('/ingest/log'))
    .flatMap((s) =>
      envelopes(s.body).flatMap((e) => e.data.filter((d) => d.name === 'nudge_response').map((d) => ({ user: e.id, ...(d.ctx as Record<string, unknown>) }))),
    );

describe('actions', () => {
  it('pulls for the current user with the given filters, and keeps one-off actions until they are handled', async () => {
    const t = testClient();
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(1), entry(2, { delivery_mode: 'cached' })], more: false } });
    const first = await (
      await t.client.actions()
    ).fetchActions({ type: 'message', render_method: 'InAppMessage', delivery_mode: 'one-off', attr: { screen: 'cart' } });
    expect(t.sent[0]).toEqual({
      url: 'https://api.example.com/v1/action/sdk/pull',
      body: '{"user_id":"alice","type":"message","render_method":"InAppMessage","delivery_mode":"one-off","attr":{"screen":"cart"}}',
      unload: false,
    });
    expect(first.map((a) => [a.ref, a.delivery_mode, a.content.body, a.user_id])).toEqual([
      ['4:1', 'one-off', '<b>10%</b> off paracetamol', 'alice'],
      ['4:2', 'cached', '<b>10%</b> off paracetamol', 'alice'],
    ]);
    // The platform hands a one-off action out once; the library still has it (persisted) on the next pull.
    t.answer({ status: 200, body: { data: [], more: false } });
    const second = await (await t.client.actions()).fetchActions({ type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
    expect(second.map((a) => a.ref)).toEqual(['4:1']);
    // Kept for alice only.
    t.client.setUser('bob');
    expect(await (await t.client.actions()).kept('bob', { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' })).toEqual([]);
  });

  it('shown once, then open: nudge_response shown and open, the handler gets cta_type, cta_id and the attributes', async () => {
    const r = fakeRenderer();
    const t = testClient({}, fakeDeps(), r.renderer);
    const got: unknown[] = [];
    t.handlers.push((e) => got.push({ cta_type: e.cta_type, cta_id: e.cta_id, attr: e.attr }));
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(1)], more: false } });
    expect(await (await t.client.actions()).showFor('cart')).toBe(true);
    expect(r.shown).toEqual([{ title: 'Offer 1', body: '<b>10%</b> off paracetamol', cta: 'Open', close: 'Close' }]);
    // One message at a time.
    expect(await (await t.client.actions()).showFor('cart')).toBe(false);
    r.click();
    await t.client.flush();
    expect(got).toEqual([{ cta_type: 'add_to_cart', cta_id: 'drug-42', attr: { screen: 'cart', cta_type: 'add_to_cart', cta_id: 'drug-42' } }]);
    expect(responses(t)).toEqual([
      { user: 'alice', ref: '4:1', time: '2026-11-27T02:00:00.000000Z#4:1', response: 'shown' },
      { user: 'alice', ref: '4:1', time: '2026-11-27T02:00:00.000000Z#4:1', response: 'open' },
    ]);
    expect(await (await t.client.actions()).kept('alice', { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' })).toEqual([]);
  });

  it('discard, under the user who pulled it even after a logout', async () => {
    const r = fakeRenderer();
    const t = testClient({}, fakeDeps(), r.renderer);
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(3)], more: false } });
    await (await t.client.actions()).showFor('cart');
    t.client.reset();
    r.close();
    await t.client.flush();
    expect(responses(t).map((x) => [x.user, x.response])).toEqual([
      ['alice', 'shown'],
      ['alice', 'discard'],
    ]);
    const discard = t.sent
      .flatMap((s) => (s.url.endsWith('/ingest/log') ? envelopes(s.body) : []))
      .find((e) => e.data.some((d) => (d.ctx as { response?: string }).response === 'discard'));
    expect(discard?.internal.s_id?.startsWith('alice_')).toBe(true);
  });

  it('expired before it was shown: nudge_response expired, nothing rendered', async () => {
    const r = fakeRenderer();
    const t = testClient({}, fakeDeps(), r.renderer);
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(5, { expired_at: '2026-11-27T02:59:59Z' })], more: false } });
    expect(await (await t.client.actions()).showFor('cart')).toBe(false);
    await t.client.flush();
    expect(r.shown).toEqual([]);
    expect(responses(t).map((x) => x.response)).toEqual(['expired']);
    expect(await (await t.client.actions()).kept('alice', { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' })).toEqual([]);
  });

  it('issue 36 item 8: expiry on the platform’s clock (the pull answer’s Date), not the device’s: a device 2 h slow still sees the message expired', async () => {
    const r = fakeRenderer();
    const t = testClient({}, fakeDeps(), r.renderer);
    t.client.setUser('alice');
    // The device says 03:00; the platform (its Date header) says 05:00; the message expired at 04:00.
    t.answer({ status: 200, body: { data: [entry(7, { expired_at: '2026-11-27T04:00:00Z' })], more: false }, date: t.now + 2 * 3600_000 });
    expect(await (await t.client.actions()).showFor('cart')).toBe(false);
    await t.client.flush();
    expect(r.shown).toEqual([]);
    expect(responses(t).map((x) => x.response)).toEqual(['expired']);
    // And a device clock 2 h fast does not expire a message the platform still holds valid.
    const fast = fakeDeps(memoryShared(), memoryStore(), T0 + 2 * 3600_000);
    const u = testClient({}, fast, r.renderer);
    u.client.setUser('alice');
    u.answer({ status: 200, body: { data: [entry(8, { expired_at: '2026-11-27T04:00:00Z' })], more: false }, date: T0 });
    expect(await (await u.client.actions()).showFor('cart')).toBe(true);
    expect(r.shown.map((v) => v.title)).toEqual(['Offer 8']);
  });

  it('renderer that cannot load: nudge_response error with details', async () => {
    const t = testClient();
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(6)], more: false } });
    expect(await (await t.client.actions()).showFor('cart')).toBe(false);
    await t.client.flush();
    expect(responses(t)).toEqual([
      {
        user: 'alice',
        ref: '4:6',
        time: '2026-11-27T02:00:00.000000Z#4:6',
        response: 'error',
        details: 'renderer did not load: Error: no renderer in this test',
      },
    ]);
  });

  it('shows only messages for the screen asked for (or for no screen)', async () => {
    const r = fakeRenderer();
    const t = testClient({}, fakeDeps(), r.renderer);
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [entry(7, { attr: { screen: 'checkout' } })], more: false } });
    expect(await (await t.client.actions()).showFor('cart')).toBe(false);
    t.answer({ status: 200, body: { data: [], more: false } });
    expect(await (await t.client.actions()).showFor('checkout')).toBe(true);
  });
});
