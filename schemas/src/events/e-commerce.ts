import { is, onlyWhen, requiredWhen } from '../dsl/rules';
import { defaultTo, epochZeroTime, leftOutBy } from '../dsl/client';
import { opt, req, t, type EventDef } from '../dsl/types';
import { coordinates, item, itemInfo, itemType, report, store } from './objects';
import { currencyCode, isoDateTime } from './value-rules';

/** E-commerce block events (spec 6, E-commerce). */
const ITEM_ACTIONS = [
  'impression',
  'view',
  'detail',
  'add_favorite',
  'remove_favorite',
  'add_reminder',
  'remove_reminder',
  'remove_reminder_auto',
  'top_up',
  'cancel',
  'update',
  'remove',
  'add',
  'select',
] as const;
const DELIVERY_ACTIONS = ['schedule', 'update', 'dispatch', 'delivered'] as const;

const itemEvent: EventDef = {
  event: 'item',
  block: 'e_commerce',
  name: 'ItemProps',
  fields: { action: req(t.enum('item_action', ITEM_ACTIONS, { extensions: ['other'] })), item: req(t.object(item)) },
};

const cartEvent: EventDef = {
  event: 'cart',
  block: 'e_commerce',
  name: 'CartProps',
  fields: {
    id: req(t.string, { doc: 'cart id', client: { aliases: ['cart_id'] } }),
    action: req(t.enum('cart_action', ['add_item', 'remove_item'])),
    cart_price: req(t.float, { min: 0, client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client never sends it (CartObject has no cart price)') } }),
    currency: req(t.string, { doc: 'ISO 4217 code' }),
    item: req(t.object(item)),
  },
  rules: [currencyCode('currency')],
};

const checkoutEvent: EventDef = {
  event: 'checkout',
  block: 'e_commerce',
  name: 'CheckoutProps',
  doc: 'Some item types need extra values in meta',
  fields: {
    id: req(t.string, { doc: 'order id' }),
    cart_id: req(t.string),
    cart_price: req(t.float, { min: 0 }),
    currency: req(t.string),
    shop_mode: opt(t.enum('shop_mode', ['delivery', 'pickup'])),
    items: req(t.array(t.object(item)), { doc: 'all items in the order' }),
    is_successful: req(t.boolean),
  },
  rules: [currencyCode('currency')],
};

const deliveryEvent: EventDef = {
  event: 'delivery',
  block: 'e_commerce',
  name: 'DeliveryProps',
  fields: {
    // causalfoundry/ios-sdk 0.4.3–0.5.3 schedule_delivery (an alias of delivery) has no delivery id:
    // the order has one delivery, so its id stands for it.
    id: req(t.string, { doc: 'delivery id', client: { default: defaultTo('the order id', (v) => v.order_id) } }),
    order_id: req(t.string),
    action: req(t.enum('delivery_action', DELIVERY_ACTIONS)),
    // The 0.4.3–0.5.3 delivery (action delivered) has no is_urgent: not marked urgent.
    is_urgent: req(t.boolean, { client: { default: defaultTo('not urgent', () => false) } }),
    // Kept as the string sent: an estimate, not an event time, so it is not converted; but it must be
    // ISO 8601 with an offset (time_format), or it could not be read later. schedule_delivery calls it
    // delivery_ts; causalfoundry/ios-sdk sends the epoch (in device time) when none is set.
    est_delivery_ts: opt(t.string, { doc: 'ISO 8601', client: { aliases: ['delivery_ts'], unset: epochZeroTime } }),
    delivery_coordinates: opt(t.object(coordinates)),
    dispatch_coordinates: opt(t.object(coordinates)),
  },
  rules: [isoDateTime('est_delivery_ts')],
};

const cancelCheckoutEvent: EventDef = {
  event: 'cancel_checkout',
  block: 'e_commerce',
  name: 'CancelCheckoutProps',
  fields: {
    id: req(t.string, { doc: 'order or cart id' }),
    type: req(t.enum('cancel_checkout_type', ['cart', 'order'])),
    items: req(t.array(t.object(itemType))),
    reason: opt(t.string),
  },
};

const itemReportEvent: EventDef = {
  event: 'item_report',
  block: 'e_commerce',
  name: 'ItemReportProps',
  fields: { item: req(t.object(itemType)), store_info: req(t.object(store)), report_info: req(t.object(report)) },
};

const itemRequestEvent: EventDef = {
  event: 'item_request',
  block: 'e_commerce',
  name: 'ItemRequestProps',
  fields: { id: req(t.string), item_name: req(t.string), manufacturer: req(t.string) },
};

/**
 * The spec marks item_info R but "absent when verification failed": so it is present exactly when
 * is_successful is true — two rules, one per direction.
 */
const itemVerificationEvent: EventDef = {
  event: 'item_verification',
  block: 'e_commerce',
  name: 'ItemVerificationProps',
  fields: {
    scan_channel: req(t.enum('scan_channel', ['app', 'ussd'])),
    scan_type: req(t.enum('scan_type', ['pin', 'qr_code'])),
    is_successful: req(t.boolean),
    item_info: opt(t.object(itemInfo), { doc: 'present iff is_successful' }),
  },
  rules: [
    requiredWhen('item_info', is('is_successful', true), 'item_info_iff_successful', 'item_info is required when the verification succeeded'),
    onlyWhen('item_info', is('is_successful', true), 'item_info_iff_successful', 'item_info must be absent when the verification failed'),
  ],
};

export const eCommerceEvents: EventDef[] = [
  itemEvent,
  cartEvent,
  checkoutEvent,
  deliveryEvent,
  cancelCheckoutEvent,
  itemReportEvent,
  itemRequestEvent,
  itemVerificationEvent,
];
