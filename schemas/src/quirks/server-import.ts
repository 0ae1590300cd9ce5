import { GENERATOR } from './clients';
import type { ClientQuirk } from './types';

/**
 * Quirks of the server import clients (see types.ts): the synthetic data generator, which posts
 * flat logs and catalog arrays to /data/ingest/… (docs/clients/generator.md). The flat form and its
 * event quirks: schemas/src/normalize/flat-form.ts and flat-event-quirks.ts; catalog values:
 * normalize/catalog-quirks.ts; the rest are contract spellings (events/*.ts, catalogs/definitions.ts).
 * Quirks the generator shares with other clients (block_spelling, event_alias, property_alias,
 * required_missing, default_applied, type_coerced) have one entry each, in the list of the client
 * that first needed them, naming every client that sends them.
 */
export const serverImportQuirks: readonly ClientQuirk[] = [
  {
    rule: 'flat_envelope',
    sends: 'no envelope: `{"data": [{u_id, d_id, os, ol, ts, type, ip, up, dn, block, props}, …]}`, many users per body, no session, sdk, app version or tz',
    becomes: 'the flat form: user, device and os from each log, `ip`/`up`/`dn` kept in `client`, session, sdk, app version and tz empty (`envelope` = `flat`)',
    clients: GENERATOR,
    source: 'src/synthetic/event/log/log_base.py (as_payload_dict), src/synthetic/sink/http_flush_sink.py',
    gate: ['server-import'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'number_precision',
    sends: 'an integer beyond 2^53 (the negative `nudge_id` of nudges it invents)',
    becomes: 'read as JSON parses it (last digits lost); such a ref names no action, so the feedback consumer counts it as unknown',
    clients: GENERATOR,
    source: 'src/synthetic/utils/nudge_utils.py (generate_random_nudge)',
    gate: ['server-import'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'value_format',
    sends: 'user catalog `country` and `language` as ISO codes (`IN`, `fr`) where the spec wants full names',
    becomes: 'the English name (`India`, `French`, from ICU); an unknown code is kept as sent',
    clients: GENERATOR,
    source: 'src/synthetic/utils/user_utils.py (generate_random_user_data)',
    gate: ['server-import'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'time_precision',
    sends: 'times with microseconds (`2025-03-04T09:12:45.381204Z`)',
    becomes: 'the millisecond (canonical times are epoch ms); only reported when the dropped digits are not zeros',
    clients: GENERATOR,
    source: 'src/synthetic/constants.py (LOG_DATETIME_FORMAT), utils/time_utils.py',
    gate: 'every',
    otherwise: 'time_precision',
  },
];
