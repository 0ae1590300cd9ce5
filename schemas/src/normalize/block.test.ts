import { ctx as fixtureCtx, earlierEnvelope } from '../__fixtures__/envelopes';
import { normalizeUpload } from './normalize';

// Received after the 2025 times these clients' logs carry (an earlier receipt would flag them future_time).
const ctx = { ...fixtureCtx, receivedAt: Date.UTC(2026, 0, 1) };

/** The declared block of earlier-form logs as causalfoundry/ios-sdk 0.4.3–1.2.3 send it (block.ts). */
const log = (block: string, type: string, props: Record<string, unknown>) => ({ block, ol: true, ts: '2025-03-17T09:02:20Z', type, props });
const page = { path: 'com.example.pharmacy/CartViewController', title: 'CartViewController', duration: 8.5, render_time: 0 };
const itemRequest = { id: 'req_44', item_name: 'Amoxicillin 250mg syrup', manufacturer: 'GSK' };
/** Sent by causalfoundry/ios-sdk 1.0.3 (the last with block_missing); the quirks are gated by that sdk (quirks/gate.ts). */
const one = (l: unknown) => normalizeUpload({ ...earlierEnvelope([l]), sdk: 'ios/1.0.3' }, ctx);
const warningsOf = (l: unknown) => one(l).accepted[0]!.warnings;

describe('declared blocks of real clients', () => {
  it.each([
    ['e-commerce', 'item_request', itemRequest, 'e_commerce'],
    ['e-learning', 'module', { id: 'mod_1', action: 'view' }, 'e_learning'],
    ['chw_mgmt', 'prescription', { patient_id: 'p', site_id: 's', id: 'rx' }, 'patient_mgmt'],
  ])('reads %s as the block of the event (block_spelling)', (block, type, props, canonical) => {
    const r = one(log(block, type, props));
    expect(r.rejected).toEqual([]);
    expect(r.accepted[0]!.event.block).toBe(canonical);
    expect(warningsOf(log(block, type, props))).toContainEqual({ path: '$.data[0].block', rule: 'block_spelling', message: `"${block}" read as ${canonical}` });
  });

  it('takes the block from the event type when it is "" (block_missing, rate up to 1.0.3)', () => {
    const r = one(log('', 'rate', { rate_value: 4.5, type: 'item', subject_id: 'sku_1002' }));
    expect(r.accepted[0]!.event.block).toBe('core');
    expect(r.accepted[0]!.warnings).toEqual([{ path: '$.data[0].block', rule: 'block_missing', message: 'block is empty; rate belongs to block core' }]);
  });

  it.each(['e-commerce', 'e_commerce', 'loyalty', 'social', 'patient_mgmt', 'chw_mgmt'])(
    'keeps a core event sent with the app block %s in core (block_of_app)',
    (block) => {
      const r = one(log(block, 'page', page));
      expect(r.rejected).toEqual([]);
      expect(r.accepted[0]!.event.block).toBe('core');
      expect(r.accepted[0]!.warnings).toEqual([
        {
          path: '$.data[0].block',
          rule: 'block_of_app',
          message: `page is a core event sent with the app's block ${JSON.stringify(block)}; stored in block core`,
        },
      ]);
    },
  );

  it('still rejects a non-core event in another block, and a block no client uses (block_mismatch)', () => {
    expect(one(log('loyalty', 'item_request', itemRequest)).rejected[0]!.reasons).toEqual([
      { path: '$.data[0].block', rule: 'block_mismatch', message: 'item_request belongs to block e_commerce, not loyalty' },
    ]);
    expect(one(log('social', 'item_request', itemRequest)).rejected[0]!.reasons.map((e) => e.rule)).toEqual(['block_mismatch']);
    expect(one(log('ecommerce', 'page', page)).rejected[0]!.reasons).toEqual([
      { path: '$.data[0].block', rule: 'block_mismatch', message: 'page belongs to block core, not ecommerce' },
    ]);
    expect(one(log('constructor', 'page', page)).rejected[0]!.reasons.map((e) => e.rule)).toEqual(['block_mismatch']);
  });

  it('still requires a block, and a string', () => {
    const { block: _b, ...noBlock } = log('core', 'page', page);
    expect(one(noBlock).rejected[0]!.reasons).toEqual([{ path: '$.data[0].block', rule: 'required', message: 'block is required' }]);
    expect(one({ ...noBlock, block: 3 }).rejected[0]!.reasons.map((e) => `${e.path} ${e.rule}`)).toEqual(['$.data[0].block type']);
  });

  it.each([
    ['e-commerce', 'item_request', itemRequest, 'block_spelling'],
    ['', 'rate', { rate_value: 4.5, type: 'item', subject_id: 'sku_1002' }, 'block_missing'],
    ['loyalty', 'page', page, 'block_of_app'],
  ])('rejects the block %j from any other client (android_2.0.0): block_mismatch naming %s', (block, type, props, quirk) => {
    const r = normalizeUpload(earlierEnvelope([log(block, type, props)]), ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected[0]!.reasons.map((e) => [e.path, e.rule])).toEqual([['$.data[0].block', 'block_mismatch']]);
    expect(r.rejected[0]!.reasons[0]!.message).toContain(`(${quirk}), accepted only from those clients`);
  });
});
