import type { RejectionReason } from '@evp/core';

/**
 * Every rule an ingest rejection or warning can name (ingest receipts, `ingest.rejected`, the
 * `warnings` column of `events`, the inspector): one entry each, with its severity, what it means and
 * where it comes from (a spec section, a choice of this platform where the spec is silent, or a real
 * client's quirk, listed with its gate in schemas/src/quirks). Code names rules through `RuleName`, so
 * a misspelt rule is a compile error; docs/reference/rules.md is generated from this table, and
 * rules.test.ts checks both ways that every rule the code emits is here and every rule here is
 * emitted (fastify's lib/errors.js and its test are the model).
 */
export interface RuleDoc {
  /** `error`: the event or record is rejected; `warning`: accepted, and the warning says what was changed. */
  severity: 'error' | 'warning';
  /** What the rule means, in one sentence. */
  meaning: string;
  /** Where it comes from: `spec <section>`, `platform` (a choice where the spec is silent: docs/data-contract.md), or `client quirk` (the quirk table). */
  from: string;
}

const error = (from: string, meaning: string): RuleDoc => ({ severity: 'error', meaning, from });
const warning = (from: string, meaning: string): RuleDoc => ({ severity: 'warning', meaning, from });
/** A real client's quirk: accepted with this warning from the clients its gate names (schemas/src/quirks), rejected from any other. */
const quirk = (meaning: string): RuleDoc => warning('client quirk', meaning);

export const RULES = {
  // Shapes and values (spec 2.1–2.6, 6).
  required: error('spec 2.1, 2.2, 2.4, 2.6, 6', 'a field the spec (or the definition) marks required is absent or null'),
  type: error('spec 2.1–2.6', 'a value of the wrong JSON type (or an envelope, log or record that is not an object)'),
  enum: error('spec 2.4, 6', 'a value outside the list the spec gives'),
  range: error('spec 6, 8', 'a number outside its bounds (rate_value 0..5, prices ≥ 0, coordinates, …)'),
  non_empty: error('platform', 'a string that must not be empty (a catalog id, the current-form property) is ""'),
  time_format: error('spec 2.1, 2.2', 'a time that is neither `YYYY-MM-DD HH:mm:ss.SSS` (read in the envelope tz) nor ISO 8601 with an offset'),
  unknown_event: error('spec 6', 'an event name the spec does not define'),
  block_mismatch: error('spec 2.2, 6', 'the earlier form declares a block other than the event type’s'),
  currency_code: error('platform (ISO 4217)', '`currency` is not an active ISO 4217 code'),
  address_site_or_country: error('spec 7.6', 'an address has neither `site_id` nor `country`'),
  details_only_for_error: error('spec 7.5', 'nudge_response `details` sent with a response other than `error`'),
  acc_points_for_add: error('spec 6 (reward)', 'a reward `add` without `acc_points`'),
  redeem_for_redeem: error('spec 6 (reward)', 'a reward `redeem` without `redeem`'),
  response_for_submit: error('spec 6 (survey)', 'a survey `submit` without `response`'),
  item_info_iff_successful: error('spec 6 (item_verification)', '`item_info` present although not successful, or absent although successful'),
  image_url_or_base64: error('spec 2.6 (message)', 'an image message body without `url` or `base64`'),
  message_body_shape: error('spec 2.6 (message)', 'a message body without what its type needs (`text`, `mime_type` and `base64`, `emoji`)'),
  start_time_only_for_open: error('spec 6 (app)', 'app `start_time` other than 0 for an action but open'),
  time_zero_for_image: error('spec 6 (media)', 'media `time` other than 0 for an image'),
  total_points_below_acc_points: error('platform', 'reward `total_points` below `acc_points` (the total includes them)'),
  birth_year_future: error('platform', 'a user catalog `birth_year` after the year the record was received'),
  unknown_catalog_kind: error('spec 2.4', 'a catalog kind that is neither built in nor a valid app-defined name'),
  client_quirk: error(
    'platform',
    'a real client’s quirk sent by another client: the quirk is accepted only from the clients its gate names (the message names the quirk, the clients and what the spec wants)',
  ),
  // User tokens (docs/keys.md, "User tokens"): an app's policy enforce or report.
  user_token_mismatch: error(
    'platform',
    'an identified user’s event (or `user` catalog record) in an upload whose user token is another user’s (the app enforces user tokens)',
  ),
  user_token_missing: error(
    'platform',
    'an identified user’s event (or `user` catalog record) in an upload without a valid user token (the app enforces user tokens)',
  ),
  // Sizes and unreadable input.
  max_size: error('platform', 'an event or record over the size limit (64 KiB of JSON)'),
  max_depth: error('platform', 'an event nesting arrays and objects deeper than 64 levels'),
  max_message_bytes: error('platform', 'an output too large for its topic'),
  json: error('platform', 'a body that is not JSON'),
  unsupported_payload_kind: error('platform', 'a raw message of a payload kind the validator does not read'),
  processing_error: error('platform', 'a message the validator could not process at all (kept whole as a parse violation)'),
  // Warnings for every client (platform choices where the spec is silent).
  user_token_unverified: warning(
    'platform',
    'an event or `user` catalog record that enforce would reject for its user token (the app’s policy is report: kept)',
  ),
  unknown_property: warning(
    'platform',
    'a property the definition does not know; kept as an extra (dropped instead in a health block of an app whose policy drops them)',
  ),
  // The app's privacy policy (docs/privacy.md, "Policy"): what the validator removed before storing.
  unknown_property_dropped: warning('platform', 'a property the definition does not know, in a health block of an app whose policy drops them; not stored'),
  session_id_shape: warning('platform', '`s_id` is not `<user>_<startMs>_<endMs>`; session start and end left empty'),
  session_user_mismatch: warning('platform', 'the user part of `s_id` is not the envelope’s user'),
  sdk_shape: warning('platform', '`sdk` is not `<os>/<version>`; sdk name and version left empty'),
  app_version_shape: warning('platform', 'the app version is not `<major>.<minor>.<patch> (<code>)`; left empty'),
  default_id: warning('spec 2.4', 'a catalog id derived from the record (blood, oxygen) because none was sent'),
  deprecated_kind: warning('spec 9', 'a record of the deprecated facility catalog'),
  identify_user_catalog: warning('spec 2.4, 4.3', 'an identify event’s user properties could not make a user catalog record'),
  event_not_in_spec: warning('platform', 'an event the spec lacks, defined from the real clients that send it (gated like a quirk)'),
  time_precision: warning('platform', 'a time with digits below the millisecond, read to the millisecond (ISO 8601 allows them: every client)'),
  future_time: warning('platform', 'an event dated more than the tolerance after the upload was received; kept as sent'),
  sent_at_format: warning('platform', 'an upload’s `sent_at` that is neither ISO 8601 with an offset nor epoch ms; its event times are stored uncorrected'),
  custom_catalog_kind: warning(
    'platform (spec 4.3)',
    'records of a catalog kind the app defines itself, kept as sent in catalog_custom (every client; docs/data-contract.md, "App-defined catalog kinds")',
  ),
  // Client quirks (the quirk table in docs/data-contract.md: what each client sends, its gate, its source).
  ambiguous_flattened_key: quirk('a flattened key that two objects share (checkout and item `id`)'),
  app_version_major_build: quirk('`app_info` as `<major>.<build>`; the build is the version code'),
  app_version_two_part: quirk('a two-part app version `2.3 (45)`'),
  app_version_unknown: quirk('app version `0.0`: unknown, left empty'),
  block_is_permission: quirk('action_response `block` meaning "notifications not authorised"; read as `error`'),
  block_missing: quirk('`block: ""`; the event type’s block'),
  block_of_app: quirk('a core event declared in the app’s block; stored in core'),
  block_spelling: quirk('`e-commerce`, `e-learning`, `chw_mgmt` for the spec blocks'),
  boolean_as_number: quirk('a BOOLEAN as 1/0'),
  catalog_kind_alias: quirk('catalog subjects `chw`, `chwsite` for hcw and site'),
  catalog_string_coerced: quirk('catalog values all strings (`/v1/ingest/dimensions`); read by the field types'),
  copied_from_item: quirk('cart/checkout currency taken from the item'),
  currency_code_ios_list: quirk('a code of the iOS SDK’s currency list that is not active ISO 4217'),
  custom_event: quirk('an app’s own event name (track), stored as `custom`'),
  default_applied: quirk('a required field the client never writes, given its documented default'),
  default_zero: quirk('site position `"0","0"` for none; left out'),
  empty_details: quirk('nudge_response `details: ""`; left out'),
  empty_enum: quirk('`""` for an enum value not set; treated as absent'),
  empty_property: quirk('`property: ""` for an event without a property; null'),
  enum_alias: quirk('a client’s spelling of an enum value'),
  enum_extension: quirk('a value the client’s enum has and the spec’s list lacks; kept'),
  enum_spelling: quirk('an enum value in another case or camelCase'),
  epoch_zero_time: quirk('an ISO time that is the Unix epoch, for no time; left out'),
  event_alias: quirk('an event type under the client’s name for it (`identity`, `schedule_delivery`)'),
  event_spelling: quirk('an event type in camelCase'),
  flat_envelope: quirk('a server-side import’s flat body (no session, sdk, app version, tz)'),
  flattened_object: quirk('a nested object merged into ctx; rebuilt'),
  joined_list: quirk('a list as one `", "`-joined string; split'),
  lat_lon_string: quirk('coordinates as one string `"lat, lon"`'),
  nudge_ref_derived: quirk('action_response without `ref`; derived from the pulled action'),
  nudge_time_derived: quirk('action_response without `time`; derived'),
  number_precision: quirk('an integer beyond 2^53 (last digits lost)'),
  payment_event_mapped: quirk('one `payment` event mapped onto payment_method / deferred_payment'),
  property_alias: quirk('a client’s own name for a field'),
  property_moved: quirk('a field sent inside a nested object instead of on the event'),
  property_spelling: quirk('a field name in camelCase or upper case'),
  redeem_currency_empty: quirk('redeem `currency: ""`; absent'),
  render_time_seconds: quirk('page `render_time` in seconds; × 1000'),
  required_missing: quirk('a required field the client leaves out; accepted without it'),
  sdk_crash_item: quirk('an item of the iOS crash upload, stored as an exception event'),
  sdk_wrapper: quirk('`sdk` prefixed by a wrapper (`rn/ios/<version>`)'),
  session_end_before_start: quirk('`s_id` whose end is before its start; session end left empty'),
  store_id_is_remarks: quirk('item_report `store_id` a copy of the remarks'),
  time_as_string: quirk('an epoch-ms time as an ISO string'),
  total_points_zero_default: quirk('reward `total_points` 0 (its default) below `acc_points`'),
  type_coerced: quirk('a value of another JSON type, read as the field’s type'),
  unset_value: quirk('a number the client sends for "not set" (`0`); absent'),
  value_format: quirk('user catalog country/language as ISO codes; English names'),
} as const satisfies Record<string, RuleDoc>;

/** The name of a registered rule: a string literal outside RULES is a compile error wherever a rule is named. */
export type RuleName = keyof typeof RULES;

/** A rejection reason or warning naming a registered rule (assignable to @evp/core's RejectionReason). */
export type Reason = RejectionReason<RuleName>;
