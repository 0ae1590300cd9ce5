import type { Reason } from '../rules/registry';
import { isObject } from '@evp/contract';

/**
 * What the synthetic data generator (the flat form's client, docs/clients/generator.md) sends
 * differently from the spec, made readable before the event is validated, each with a named warning.
 * Only flat logs pass through here: these shapes come from that client alone, and some values are
 * derived (a default) rather than read, which should never happen silently to a client library's
 * event. Spellings every client may use are in the contract instead (enum and property aliases, and
 * what an omission means, e.g. schedule_delivery's missing delivery id: the order id, `default_applied`).
 * `props` is never changed in place: the rejected record of an event keeps what was sent.
 */
export function applyFlatEventQuirks(
  name: string,
  props: Record<string, unknown>,
  time: string,
  path: string,
): { props: Record<string, unknown>; warnings: Reason[] } {
  const warnings: Reason[] = [];
  const absent = (k: string) => props[k] === undefined || props[k] === null;
  switch (name) {
    case 'app':
      // Spec 6: start_time is 0 for every action but open. For open it stays absent
      // (required_missing: the generator cannot measure how long the first screen took).
      if (absent('start_time') && typeof props.action === 'string' && ['close', 'resume', 'background'].includes(props.action)) {
        warnings.push({ path: `${path}.start_time`, rule: 'default_applied', message: `start_time is absent; 0, the spec's value for action ${props.action}` });
        return { props: { ...props, start_time: 0 }, warnings };
      }
      break;
    case 'search':
      // A search is a core event (its declared block must be core): the module searched is core.
      if (absent('module')) {
        warnings.push({ path: `${path}.module`, rule: 'default_applied', message: 'module is absent; core, the block the search was logged in' });
        return { props: { ...props, module: 'core' }, warnings };
      }
      break;
    case 'nudge_response':
      return nudgeResponse(props, time, path, warnings);
  }
  return { props, warnings };
}

/**
 * The generator's `{nudge_id, type, response: {action}, resolved_action?}` → `{ref, time, response}`.
 * `nudge_id` is the fetched answer's `id` (the action's ref, `<inv_id>:<action_id>`, from
 * GET /nudge/sdk/get), or a negative integer for nudges it invents. `type` and `resolved_action`
 * stay as extras (unknown_property). A `response` object with anything besides a string `action` is
 * left as sent, and rejected: reading one key of it would drop the others.
 */
function nudgeResponse(props: Record<string, unknown>, time: string, path: string, warnings: Reason[]) {
  const out: Record<string, unknown> = { ...props };
  if ((out.ref === undefined || out.ref === null) && 'nudge_id' in out) {
    const id = out.nudge_id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) {
      delete out.nudge_id;
      out.ref = typeof id === 'string' ? id : String(id);
      warnings.push({ path: `${path}.nudge_id`, rule: 'property_alias', message: "nudge_id is the generator's name for ref; read as ref" });
      if (typeof id === 'number') {
        warnings.push({ path: `${path}.nudge_id`, rule: 'type_coerced', message: `nudge_id is a number; ref is its decimal text ${out.ref as string}` });
        if (Number.isInteger(id) && !Number.isSafeInteger(id)) {
          warnings.push({
            path: `${path}.nudge_id`,
            rule: 'number_precision',
            message: 'nudge_id is beyond 2^53: JSON numbers keep about 16 significant digits, so its last digits were lost before it was read',
          });
        }
      }
    }
  }
  const response = out.response;
  if (isObject(response) && typeof response.action === 'string' && Object.keys(response).length === 1) {
    out.response = response.action;
    warnings.push({ path: `${path}.response`, rule: 'type_coerced', message: `response is an object {action}; read as its action ${response.action}` });
  }
  if (out.time === undefined || out.time === null) {
    out.time = time;
    warnings.push({ path: `${path}.time`, rule: 'default_applied', message: "time is absent; the log's ts, the time of the reaction" });
  }
  return { props: out, warnings };
}
