import type { RuleName } from '../../rules/registry';
/**
 * The one table that says, per event, how a flattened `ctx` maps back onto the spec's properties
 * (docs/clients/kenkai-ios-and-unity.md, Finding 6). The Kenkai iOS client (causalfoundry/ios-sdk
 * 1.0.0–1.0.1, KenkaiSDK* modules, and the Core 1.0.10 inside causalfoundry/unity-sdk) builds every
 * ctx with `serializeToFlatMap`: nested objects are merged into the top level under their own keys,
 * arrays become one `", "`-joined string, booleans 1/0 — and several keys carry their model's own
 * names (`media_id`, `seek_time`, …). rebuild.ts applies an entry; nothing here is code per event.
 *
 * A key maps to one or more targets (a key that is only the client's name of a spec property — media
 * `media_id`, patient `id` — is not a flattening: the definition names it, `client.aliases`, read for
 * every client with the warning `property_alias`, so plain renames have no place here):
 * - `object.field`, `object.inner.field`: a field of a spec object the flattening dissolved (warning
 *   `flattened_object`, once per object);
 * - `list[0].field`: a field of the one element of a spec list (checkout sends one event per item);
 * - `list[*].field`: one element per part of a `", "`-joined string (warning `joined_list`); several
 *   keys into one such list are zipped by position, and only when their part counts agree.
 * A target object with an explicit `rule` is reported under that rule instead (a copy or an ambiguous key).
 * A key is moved only when the spec's own property is not in the ctx already, so an event that is
 * sent in the spec's shape is never touched.
 */
interface FlatTargetWithRule {
  to: string;
  rule: RuleName;
  message: string;
}
export type FlatTarget = string | FlatTargetWithRule;

export interface FlatCtxMapping {
  keys: Readonly<Record<string, FlatTarget | readonly FlatTarget[]>>;
  /** Properties the client sends in whole seconds where the spec has milliseconds (warning `render_time_seconds`). */
  secondsToMs?: readonly string[];
  /** A key the client fills with a copy of another one (a client bug): warned when both are equal. */
  copyBugs?: readonly { key: string; copyOf: string; rule: RuleName; message: string }[];
}

/** The e-commerce item object's fields (spec 2.6), all flattened to the top level by the client. */
const ITEM_FIELDS = ['id', 'type', 'quantity', 'price', 'currency', 'stock_status', 'promo_id', 'discount', 'facility_id'] as const;

const itemInto = (prefix: string, except: readonly string[] = []): Record<string, string> =>
  Object.fromEntries(ITEM_FIELDS.filter((f) => !except.includes(f)).map((f) => [f, `${prefix}.${f}`]));

/** The event's own currency is not sent; the item's is the only one there is. */
const currencyFromItem = (itemPath: string): readonly FlatTarget[] => [
  `${itemPath}.currency`,
  { to: 'currency', rule: 'copied_from_item', message: "the client sends no currency of its own; the item's currency is used" },
];

/** Canonical event name → how its flattened ctx maps back. Events not listed need no mapping. */
export const FLAT_CTX_MAPPINGS: Readonly<Record<string, FlatCtxMapping>> = {
  page: { keys: {}, secondsToMs: ['render_time'] },
  identify: { keys: { reason: 'blocked.reason', remarks: 'blocked.remarks' } },
  search: { keys: { results_list: 'results_list[*].id' } },
  item: { keys: itemInto('item') },
  cart: { keys: { ...itemInto('item', ['currency']), currency: currencyFromItem('item') } },
  checkout: {
    keys: {
      // Order id and item id are both `id` in the client's models; the flattening keeps one of them,
      // and which one depends on Swift's per-launch dictionary order (Finding 6a): both readings are kept.
      id: [
        { to: 'id', rule: 'ambiguous_flattened_key', message: 'the client sends the order id and the item id under one key; this may be either' },
        { to: 'items[0].id', rule: 'ambiguous_flattened_key', message: 'the client sends the order id and the item id under one key; this may be either' },
      ],
      ...itemInto('items[0]', ['id', 'currency']),
      currency: currencyFromItem('items[0]'),
    },
  },
  cancel_checkout: { keys: { items_list: 'items[*].id' } },
  item_report: {
    keys: {
      item_id: 'item.id',
      item_type: 'item.type',
      report_id: 'report_info.id',
      report_remarks: 'report_info.remarks',
      store_id: 'store_info.id',
    },
    copyBugs: [
      {
        key: 'store_info.id',
        copyOf: 'report_info.remarks',
        rule: 'store_id_is_remarks',
        message: 'the client fills the store id with the report remarks (ItemReportObject.swift: storeId = reportRemarks); the store is not known',
      },
    ],
  },
  promo: { keys: { items_list: 'items[*].id' } },
  reward: {
    keys: {
      redeem_type: 'redeem.type',
      redeem_points_withdrawn: 'redeem.points_withdrawn',
      redeem_converted_value: 'redeem.converted_value',
      redeem_is_successful: 'redeem.is_successful',
      redeem_currency: 'redeem.currency',
    },
  },
  survey: {
    keys: {
      survey_id: 'survey.id',
      type: 'survey.type',
      is_completed: 'survey.is_completed',
      reward_id: 'survey.reward_id',
      survey_questions: 'response[*].question',
      response_list: 'response[*].response',
    },
  },
  encounter: {
    keys: {
      id: 'encounter_summary.id',
      appointment_id: 'encounter_summary.appointment_id',
      encounter_time: 'encounter_summary.encounter_time',
      hcw_id_list: 'encounter_summary.hcw_id_list',
    },
  },
  appointment: {
    keys: {
      id: 'appointment.id',
      status: 'appointment.status',
      category: 'appointment.category',
      time: 'appointment.time',
      type: 'appointment.type_list',
      sub_type: 'appointment.sub_type_list',
      is_time_sensitive: 'appointment.is_time_sensitive',
      update_reason: 'appointment.update.reason',
      followup_id: 'appointment.missed.id',
      followup_type: 'appointment.missed.type',
      followup_response: 'appointment.missed.response',
    },
  },
};
