import { normalizeUpload } from './normalize';
import { ctx, currentEnvelope, earlierEnvelope } from '../__fixtures__/envelopes';

/**
 * Event-level spelling variants (issue 3) seen end to end. The per-event variants (action_response,
 * receipts as group, main_complaints_list) are also in the corpus, in both forms.
 */
const receiptProps = { msg_id: 'm-1', type: 'read', member_id: 'u-2' };

describe('spelling variants', () => {
  it("reads the chat samples' top-level ts (YYYY-MM-DD HH:mm:ssZ) in both forms", () => {
    const current = currentEnvelope([{ ts: '2023-05-01 10:00:00+0000', __ol: true, name: 'group', property: 'p', ctx: receiptProps }]);
    const earlier = earlierEnvelope([{ block: 'chat', ol: true, ts: '2023-05-01 10:00:00Z', type: 'group', props: receiptProps }]);
    for (const env of [current, earlier]) {
      const r = normalizeUpload(env, ctx);
      expect(r.rejected).toEqual([]);
      expect(r.accepted[0]!.event).toMatchObject({ name: 'receipt', sent_name: 'group', block: 'chat', time: Date.UTC(2023, 4, 1, 10), props: receiptProps });
      expect(r.accepted[0]!.warnings).toEqual([]);
    }
  });

  it('prefers time over ts when a current-form log carries both', () => {
    const log = { time: '2023-05-01 15:30:00.000', ts: '2023-05-01 00:00:00Z', __ol: true, name: 'receipt', property: 'p', ctx: receiptProps };
    const e = normalizeUpload(currentEnvelope([log]), ctx).accepted[0]!.event;
    expect(e.time).toBe(Date.UTC(2023, 4, 1, 10));
    // The unused spelling is not dropped.
    expect(e.client).toEqual({ declared_app_id: 'com.example.app' });
  });

  it('leaves a real group event a group', () => {
    const props = { group_id: 'g-1', type: 'leave', member_id: 'u-2' };
    const r = normalizeUpload(currentEnvelope([{ time: '2023-05-01 10:00:00Z', __ol: true, name: 'group', property: 'p', ctx: props }]), ctx);
    expect(r.accepted[0]!.event).toMatchObject({ name: 'group', sent_name: null, props });
  });

  it('does not resolve names through Object.prototype', () => {
    const r = normalizeUpload(currentEnvelope([{ time: '2023-05-01 10:00:00Z', __ol: true, name: 'constructor', property: 'p', ctx: {} }]), ctx);
    expect(r.rejected[0]!.reasons).toEqual([{ path: '$.data[0].name', rule: 'unknown_event', message: 'constructor is not a known event type' }]);
  });

  it('accepts meta on an event of every block, beside the log or inside ctx/props', () => {
    const meta = { campaign: 'c', n: [1, 2] };
    const r = normalizeUpload(
      [
        currentEnvelope([{ time: '2023-05-01 10:00:00Z', __ol: true, name: 'milestone', property: 'p', ctx: { id: 'ms', action: 'achieved' }, meta }]),
        currentEnvelope([{ time: '2023-05-01 10:00:00Z', __ol: true, name: 'receipt', property: 'p', ctx: { ...receiptProps, meta } }]),
        earlierEnvelope([
          {
            block: 'payment',
            ol: true,
            ts: '2023-05-01 10:00:00Z',
            type: 'payment_method',
            props: { order_id: 'o', type: 'cash', payment_amount: 1, currency: 'USD', usd_rate: 1, meta },
          },
        ]),
      ],
      ctx,
    );
    expect(r.rejected).toEqual([]);
    expect(r.accepted.map((a) => [a.event.name, a.event.meta, '__extra' in a.event.props])).toEqual([
      ['milestone', meta, false],
      ['receipt', meta, false],
      ['payment_method', meta, false],
    ]);
  });
});
