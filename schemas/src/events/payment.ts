import { req, opt, t, type EventDef } from '../dsl/types';

/**
 * Payment block: named in the spec but "not shown"; these two events come from the public SDKs of
 * this API (issue 3). Amounts and rates are doubles. `meta` is accepted on every event anyway.
 */
const PAYMENT_TYPES = ['bank_transfer', 'cheque', 'cod', 'credit', 'pos', 'bank_card', 'mobile_transfer', 'cash', 'wallet', 'other'] as const;

const paymentMethodEvent: EventDef = {
  event: 'payment_method',
  block: 'payment',
  name: 'PaymentMethodProps',
  fields: {
    order_id: req(t.string),
    type: req(t.enum('payment_type', PAYMENT_TYPES)),
    payment_amount: req(t.double),
    currency: req(t.string),
    // causalfoundry/ios-sdk (all versions) never sends usd_rate (it sends `id` and `action`, kept as extras).
    usd_rate: req(t.double, { client: { mayOmit: true } }),
  },
};

const deferredPaymentEvent: EventDef = {
  event: 'deferred_payment',
  block: 'payment',
  name: 'DeferredPaymentProps',
  fields: {
    id: req(t.string),
    // causalfoundry/ios-sdk PaymentAction: any of view, add, remove, update, select, payment_processed, other.
    action: req(t.enum('deferred_payment_action', ['payment_processed'], { extensions: ['view', 'add', 'remove', 'update', 'select', 'other'] })),
    type: req(t.enum('payment_type', PAYMENT_TYPES)),
    account_balance: req(t.double),
    payment_amount: req(t.double),
    currency: req(t.string),
    is_successful: req(t.boolean),
    usd_rate: req(t.double, { client: { mayOmit: true } }),
    order_id: opt(t.string),
  },
};

export const paymentEvents: EventDef[] = [paymentMethodEvent, deferredPaymentEvent];
