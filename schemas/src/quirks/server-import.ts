import type { ClientQuirk } from './types';

const GENERATOR = 'benshi-ai/open-synthetic-data-generator 9adc0d6 (server-side import)';

/**
 * Quirks of the server import clients (see types.ts): the synthetic data generator, which posts
 * flat logs and catalog arrays to /data/ingest/… (docs/clients/generator.md). The flat form and its
 * event quirks: schemas/src/normalize/flat-form.ts and flat-event-quirks.ts; catalog values:
 * normalize/catalog-quirks.ts; the rest are contract spellings (events/*.ts, catalogs/definitions.ts).
 */
export const serverImportQuirks: readonly ClientQuirk[] = [
  {
    rule: 'flat_envelope',
    sends: 'no envelope: `{"data": [{u_id, d_id, os, ol, ts, type, ip, up, dn, block, props}, …]}`, many users per body, no session, sdk, app version or tz',
    becomes: 'the flat form: user, device and os from each log, `ip`/`up`/`dn` kept in `client`, session, sdk, app version and tz empty (`envelope` = `flat`)',
    clients: GENERATOR,
    source: 'src/synthetic/event/log/log_base.py (as_payload_dict), src/synthetic/sink/http_flush_sink.py',
  },
  {
    rule: 'block_spelling',
    sends: 'a block name with a hyphen: `e-commerce`, `e-learning`',
    becomes: 'the block name (`e_commerce`, `e_learning`), then checked against the event as before',
    clients: GENERATOR,
    source: 'src/synthetic/constants.py (BlockType)',
  },
  {
    rule: 'event_alias',
    sends: 'its own name for a spec event: `schedule_delivery` (the delivery event with action schedule or update)',
    becomes: 'that event (`delivery`); `sent_name` keeps the name sent',
    clients: GENERATOR,
    source: 'src/synthetic/event/log/commerce/schedule_delivery.py',
  },
  {
    rule: 'property_alias',
    sends:
      'its own name for a spec field: delivery `delivery_ts` (est_delivery_ts), nudge_response `nudge_id` (ref), user catalog `organization` (organization_name)',
    becomes: 'the spec field; when the spec name is sent too, it wins and the other stays an extra',
    clients: GENERATOR,
    source: 'commerce/schedule_delivery.py, event/log/nudge/nudge_response.py, event/catalog/user_catalog.py',
  },
  {
    rule: 'default_id',
    sends: 'a schedule_delivery without its delivery `id` (also reported for blood and oxygen records without an id: the spec’s own default)',
    becomes: 'the order id (`order_id`): the generator makes one delivery per order (its later `delivered` event carries a different id)',
    clients: GENERATOR,
    source: 'src/synthetic/event/log/commerce/checkout.py (update_driver_after_flush)',
  },
  {
    rule: 'missing_required',
    sends:
      'no value for a required field a server-side import cannot know: app `start_time` (open), page `render_time`, delivery `is_urgent`, level `module_id`, exam `is_passed`/`score`/`duration` (by step)',
    becomes: 'accepted with the field unset (null); from client libraries the field is still `required`',
    clients: GENERATOR,
    source: 'navigation/app.py, general/page.py, commerce/delivery.py, event/log/generator.py (level), learning/exam.py',
  },
  {
    rule: 'defaulted',
    sends: 'no value where one follows from the event: app `start_time` (close, resume, background), search `module`, nudge_response `time`',
    becomes: '0 (spec 6: start_time is 0 but for open); `core` (the search’s block); the log’s `ts` (the time of the reaction)',
    clients: GENERATOR,
    source: 'navigation/app.py, general/search.py, event/log/nudge/nudge_response.py',
  },
  {
    rule: 'coerced_type',
    sends:
      'a value of another JSON type: nudge_response `response` as `{"action": …}`, `nudge_id` as a number, drug `active_ingredients` as the text of a Python list (`"[\'a\', \'b\']"`)',
    becomes: 'the action string; the number’s decimal text; the list it prints (any other string is still rejected)',
    clients: GENERATOR,
    source: 'event/log/nudge/nudge_response.py, utils/nudge_utils.py, event/catalog/drug_catalog.py',
  },
  {
    rule: 'number_precision',
    sends: 'an integer beyond 2^53 (the negative `nudge_id` of nudges it invents)',
    becomes: 'read as JSON parses it (last digits lost); such a ref names no action, so the feedback consumer counts it as unknown',
    clients: GENERATOR,
    source: 'src/synthetic/utils/nudge_utils.py (generate_random_nudge)',
  },
  {
    rule: 'value_format',
    sends: 'user catalog `country` and `language` as ISO codes (`IN`, `fr`) where the spec wants full names',
    becomes: 'the English name (`India`, `French`, from ICU); an unknown code is kept as sent',
    clients: GENERATOR,
    source: 'src/synthetic/utils/user_utils.py (generate_random_user_data)',
  },
  {
    rule: 'time_precision',
    sends: 'times with microseconds (`2025-03-04T09:12:45.381204Z`)',
    becomes: 'the millisecond (canonical times are epoch ms); only reported when the dropped digits are not zeros',
    clients: GENERATOR,
    source: 'src/synthetic/constants.py (LOG_DATETIME_FORMAT), utils/time_utils.py',
  },
];
