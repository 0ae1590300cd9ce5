import { isObject } from '@evp/contract';
import type { Reason } from '../rules/registry';
import { readEarlierEvent } from './earlier-form';
import { FieldReader, pickUnknown } from './fields';
import { applyFlatEventQuirks } from './flat-event-quirks';
import type { EnvelopeFacts, RawEvent } from './types';

/**
 * The flat form: a server-side import, not a client library. The synthetic data generator
 * (benshi-ai/open-synthetic-data-generator, docs/clients/generator.md) posts
 * `{"data": [{u_id, d_id, os, ol, ts, type, ip, up, dn, block, props}, …]}`: no envelope, many users
 * per body, each log carrying its own user and device. A log is the earlier form's data object
 * (`block, ol, ts, type, props`, read by the same reader) plus who sent it (`u_id`, `d_id`, `os`) and
 * the generator's `ip`, `up`, `dn`, which are kept in `client`. There is no session, sdk, app version
 * or tz: those canonical fields are empty (`session_id`, `sdk_*`, `app_version`, `tz` = "", the
 * nullable ones null), and every event says so with warning `flat_envelope`. Its hyphenated blocks
 * (`e-commerce`) are read where every form's are (normalize/block.ts, `block_spelling`), and its
 * omissions of required fields are tolerated as the client `server-import` (FieldDef.client.mayOmit).
 */

/** What a flat log carries beyond the earlier form's data object. */
const WHO = ['u_id', 'd_id', 'os'];
const CLIENT_KEYS = ['ip', 'up', 'dn'];

/** Keys of a flat body besides `data` (never sent by the generator), kept in every event's `client`. */
export function flatEnvelopeExtra(env: Record<string, unknown>): Record<string, unknown> | null {
  const extra = pickUnknown(env, ['data', 'sent_at']);
  return Object.keys(extra).length > 0 ? extra : null;
}

/**
 * One flat log → its raw event and its own facts (user, device, os). Rejected like an earlier-form
 * log when its data object is broken, and when `u_id`, `d_id` or `os` is missing or not a non-empty
 * string: a log without a user cannot be attributed, and the device fields are required as in the
 * earlier form's `d_info`.
 */
export function readFlatEvent(
  item: unknown,
  path: string,
  envelopeExtra: Record<string, unknown> | null,
): { event?: RawEvent; facts?: EnvelopeFacts; reasons: Reason[] } {
  const read = readEarlierEvent(item, path);
  if (!isObject(item)) return read;
  const r = new FieldReader(item, path);
  const userId = r.string(['u_id']);
  const deviceId = r.string(['d_id']);
  const os = r.string(['os']);
  const reasons = [...read.reasons, ...r.reasons];
  if (!read.event || reasons.length > 0) return { reasons };
  const event = read.event;
  const warnings: Reason[] = [
    { path, rule: 'flat_envelope', message: 'a flat log (server-side import): no session, sdk, app version or tz, so those fields are empty' },
  ];
  const client: Record<string, unknown> = {};
  for (const k of CLIENT_KEYS) if (k in item) client[k] = item[k];
  if (envelopeExtra) client.envelope_extra = envelopeExtra;
  const quirks = applyFlatEventQuirks(event.name, event.props, event.time, `${path}.props`);
  warnings.push(...quirks.warnings);
  return {
    reasons: [],
    event: { ...event, props: quirks.props, extra: pickUnknown(event.extra, [...WHO, ...CLIENT_KEYS]) },
    facts: {
      form: 'flat',
      line: 'server-import',
      lineVersion: [],
      userId: userId as string,
      sessionId: '',
      sessionStart: null,
      sessionEnd: null,
      deviceId: deviceId as string,
      os: os as string,
      sdkName: '',
      sdkVersion: '',
      appVersion: '',
      appVersionCode: null,
      tz: '',
      client: Object.keys(client).length > 0 ? client : null,
      warnings,
    },
  };
}
