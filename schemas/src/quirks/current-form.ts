import { KENKAI, KENKAI_AND_UNITY, UNITY } from './clients';
import type { ClientQuirk } from './types';

const FLATTEN = 'KenkaiSDKCore Utility/Extensions/CodableExtension.swift (serializeToFlatMap, flattenMap)';

/**
 * Quirks of the current form clients (see types.ts): the Kenkai iOS client and the Kenkai Core the
 * Unity SDK embeds (docs/clients/kenkai-ios-and-unity.md). Normalised in normalize/flat-ctx/*,
 * normalize/session-facts.ts, normalize/dimensions.ts and events/client-variants.ts; what both iOS
 * lines send is in ios-lines.ts.
 */
export const currentFormQuirks: readonly ClientQuirk[] = [
  {
    rule: 'flattened_object',
    sends:
      'a nested spec object merged into the top level of `ctx` under its own keys (item, blocked, redeem, survey, appointment, encounter_summary, report_info/store_info/item …)',
    becomes: "the spec's object, rebuilt from the flat keys by the event's entry of one mapping table (normalize/flat-ctx/mappings.ts)",
    clients: KENKAI_AND_UNITY,
    source: `${FLATTEN}; the event models (EventObjects/*.swift)`,
  },
  {
    rule: 'joined_list',
    sends: 'an array as one `", "`-joined string (results_list, items_list, hcw_id_list, survey questions and responses, appointment type)',
    becomes: 'the list (split on `", "`), where the definition says ARRAY; a list of objects gets one object per part',
    clients: KENKAI_AND_UNITY,
    source: FLATTEN,
  },
  {
    rule: 'boolean_as_number',
    sends: 'a BOOLEAN as 1/0 (Swift NSNumber bridging: `case let num as Int` matches a JSON boolean first)',
    becomes: 'true/false, only where the definition says BOOLEAN (elsewhere numbers stay numbers)',
    clients: `${KENKAI} (Unity's flattener keeps true/false)`,
    source: FLATTEN,
  },
  {
    rule: 'time_as_string',
    sends: 'an epoch-ms time as an ISO 8601 string (encounter `encounter_time`, appointment `time`)',
    becomes: 'epoch ms; an unparsable string is still rejected (`type`)',
    clients: KENKAI,
    source: 'KenkaiSDKPatientMgmt EncounterEventObject.swift, AppointmentEventObject.swift',
  },
  {
    rule: 'lat_lon_string',
    sends: 'delivery coordinates as one string `"24.8607, 67.0011"`',
    becomes: '`{lat, lon}`; anything but two numbers is still rejected',
    clients: KENKAI,
    source: 'KenkaiSDKEcom DeliveryObject.swift + flattenMap',
  },
  {
    rule: 'ambiguous_flattened_key',
    sends: 'checkout: the order id and the item id both as `id`; which one survives depends on Swift dictionary order per launch',
    becomes: 'the value as checkout `id` and as the item `id`, both flagged: do not join orders on it',
    clients: KENKAI,
    source: 'KenkaiSDKEcom InternalCheckoutObject.swift + flattenMap',
  },
  {
    rule: 'copied_from_item',
    sends: "cart and checkout without a currency of their own (only the item's)",
    becomes: "the event's `currency` = the item's currency",
    clients: KENKAI,
    source: 'KenkaiSDKEcom CartObject.swift, InternalCheckoutObject.swift',
  },
  {
    rule: 'empty_property',
    sends: '`property: ""` when the event has no property (item_report, item_request, level, track)',
    becomes: 'property null',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Services/APIHandler/IngestAPIHandler.swift:27',
  },
  {
    rule: 'render_time_seconds',
    sends: 'page `render_time` in whole seconds (usually 0)',
    becomes: 'milliseconds (× 1000)',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore CFViewController.swift:41',
  },
  {
    rule: 'store_id_is_remarks',
    sends: 'item_report `store_id` = a copy of the report remarks (a client bug)',
    becomes: 'kept as `store_info.id`, flagged: the store is not known',
    clients: KENKAI,
    source: 'KenkaiSDKEcom ItemReportObject.swift:32',
  },
  {
    rule: 'nudge_ref_derived',
    sends: "action_response without `ref`: ctx is the response plus the pulled action's `internal` object, flattened",
    becomes: "`ref` = `<inv_id>:<action_id>` from that copy (the platform's pull answer also carries `internal.ref`, which is used as sent)",
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Nudge listener/Notifications/CFNotificationController.swift:63-66, Models/ActionRepsonseObject.swift',
  },
  {
    rule: 'nudge_time_derived',
    sends: 'action_response without `time`',
    becomes: "`time` = the pulled action's `internal.ref_time`, else the log's own time",
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore CFNotificationController.swift:63-66',
  },
  {
    rule: 'block_is_permission',
    sends: 'action_response `block` when the user has not authorised notifications (never a user opt-out)',
    becomes: 'response `error` with details saying so: the action store counts a delivery failure and does not block the action id',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore CFNotificationController.swift:36-40',
  },
  {
    rule: 'custom_event',
    sends: "an app's own event name (track), with the name repeated in ctx `name`",
    becomes: 'event `custom` (core); `sent_name` and `props.name` keep the name, the app values are extras',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Models/TrackEventObject.swift, Validators/CoreEventValidator.swift',
  },
  {
    rule: 'payment_event_mapped',
    sends: 'one event `payment` (action view/add/remove/update/select/payment_processed/other)',
    becomes: 'action payment_processed → `deferred_payment`, any other → `payment_method` (the action kept as an extra)',
    clients: KENKAI,
    source: 'KenkaiSDKPayments Models/EventObjects/PaymentObject.swift',
  },
  {
    rule: 'app_version_two_part',
    sends: 'a two-part app version `2.3 (45)` (normal for iOS bundles)',
    becomes: 'app_version `2.3`, code 45',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Utility/Extensions/UIApplication.swift:45-51',
  },
  {
    rule: 'app_version_unknown',
    sends: 'app version `0.0` when the bundle has no short version',
    becomes: 'app_version empty (unknown)',
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Utility/Extensions/UIApplication.swift:35-51',
  },
  {
    rule: 'catalog_string_coerced',
    sends:
      'catalog records as `{"data": [{"id", "type", "kv": {string: string}}]}` on `POST /v1/ingest/dimensions`: every value a string (`"1990"`, `"24.8607"`, `"1"/"0"`, `"true"/"false"` from Unity, `", "`-joined lists)',
    becomes: "the definition's type (INT, DOUBLE, BOOLEAN, ARRAY); a string that does not parse is still rejected (`type`)",
    clients: KENKAI_AND_UNITY,
    source: 'KenkaiSDKCore Models/Catalog/CatalogItemModel.swift, Services/APIHandler/CatalogAPIHandler.swift, CodableExtension.swift (flattenMapToString)',
  },
  {
    rule: 'custom_catalog_kind',
    sends:
      'catalog records of a kind the app names itself (`LogOtherCatalog(id, "Game Item", meta)`): `{"id", "type": "game_item", "kv": {"name": "Game Item", …meta}}` on `POST /v1/ingest/dimensions`, the name snake-cased',
    becomes:
      'an app-defined kind (a name matching `[a-z][a-z0-9_]{0,63}` that is no built-in kind or alias): `id` checked, every other field kept as sent, in `catalog_custom` (column `kind`); other names are still rejected (`unknown_catalog_kind`)',
    clients: UNITY,
    source: 'Runtime/CFSDK.cs (LogOtherCatalog), KenkaiSDKCore Catalog/CfCoreCatalog.swift (updateOtherCatalog), Models/Catalog/OtherCatalogModel.swift',
  },
  {
    rule: 'default_zero',
    sends: 'site catalog `latitude`/`longitude` `"0","0"`, the site model\'s default for no position',
    becomes: 'both left out (instead of a position in the Gulf of Guinea)',
    clients: KENKAI,
    source: 'KenkaiSDKCore Models/Catalog/SiteCatalogModel.swift',
  },
];
