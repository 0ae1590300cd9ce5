import { leftOutBy } from '../dsl/client';
import { req, opt, t, type EventDef } from '../dsl/types';
import { currencyCode } from './value-rules';

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
    payment_amount: req(t.double, { min: 0 }),
    currency: req(t.string),
    // Kenkai and causalfoundry/ios-sdk (all versions) never send usd_rate (the older line sends `id` and
    // `action`, kept as extras).
    usd_rate: req(t.double, {
      min: 0,
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai'], 'causalfoundry/ios-sdk and the Kenkai iOS client never send it (PaymentObject.swift)') },
    }),
  },
  rules: [currencyCode('currency')],
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
    // A balance can be negative (credit taken); an amount paid cannot.
    account_balance: req(t.double),
    payment_amount: req(t.double, { min: 0 }),
    currency: req(t.string),
    is_successful: req(t.boolean),
    usd_rate: req(t.double, {
      min: 0,
      client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai'], 'causalfoundry/ios-sdk and the Kenkai iOS client never send it (PaymentObject.swift)') },
    }),
    order_id: opt(t.string),
  },
  rules: [currencyCode('currency')],
};

export const paymentEvents: EventDef[] = [paymentMethodEvent, deferredPaymentEvent];
