import type { Reason } from '../../rules/registry';

/** What the details of a Kenkai `block` say once it is read as the delivery failure it is. */
export const BLOCK_IS_PERMISSION_DETAILS = 'notifications are not authorised on the device (sent by the client as response block)';

const isId = (v: unknown): v is number | string =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || (typeof v === 'string' && /^\d{1,16}$/.test(v));

/**
 * `action_response` as the Kenkai client builds it (CFNotificationController.track): ctx = `response`,
 * `details` (only when non-empty) and every key of the pulled action's `internal` object, flattened.
 * It has no `ref` or `time` of its own (spec 6 nudge_response: both R), so they are taken from the
 * copy of `internal`, which is the client's only link to the action:
 * - `ref`: `internal.ref` when the pull answer carried it (this platform's does), else
 *   `<inv_id>:<action_id>` (the same value, docs/actions.md), warning `nudge_ref_derived`; with
 *   neither the event cannot be tied to an action and stays `required`;
 * - `time`: `internal.ref_time` (the time value of the pull answer), else the log's own time
 *   (warning `nudge_time_derived` either way);
 * - `block`: Kenkai sends it only when the user has not authorised notifications and a push action
 *   arrives (CFNotificationController.swift:36-40), never as the user's opt-out of an action. Read
 *   as response `error` with details saying so (warning `block_is_permission`), so the action store
 *   records a delivery failure instead of withdrawing and refusing the action id (docs/actions.md).
 *   Only for events recognised as Kenkai's (`kenkai`): the spec's `block` keeps its meaning otherwise.
 */
export function adaptActionResponse(
  props: Record<string, unknown>,
  logTime: string,
  kenkai: boolean,
  propsPath: string,
): { props: Record<string, unknown>; warnings: Reason[] } {
  const warnings: Reason[] = [];
  let out = props;
  const set = (k: string, v: unknown) => {
    if (out === props) out = { ...props };
    out[k] = v;
  };
  const absent = (k: string) => props[k] === undefined || props[k] === null;
  if (absent('ref') && isId(props.inv_id) && isId(props.action_id)) {
    set('ref', `${props.inv_id}:${props.action_id}`);
    warnings.push({ path: `${propsPath}.ref`, rule: 'nudge_ref_derived', message: 'no ref; <inv_id>:<action_id> of the pulled action used' });
  }
  if (absent('time')) {
    if (typeof props.ref_time === 'string' && props.ref_time.length > 0) {
      set('time', props.ref_time);
      delete out.ref_time;
      warnings.push({ path: `${propsPath}.time`, rule: 'nudge_time_derived', message: "no time; the pulled action's internal.ref_time used" });
    } else {
      set('time', logTime);
      warnings.push({ path: `${propsPath}.time`, rule: 'nudge_time_derived', message: "no time and no ref_time; the log's own time used" });
    }
  }
  if (kenkai && props.response === 'block') {
    set('response', 'error');
    if (absent('details')) set('details', BLOCK_IS_PERMISSION_DETAILS);
    warnings.push({
      path: `${propsPath}.response`,
      rule: 'block_is_permission',
      message: 'this client sends block only when notifications are not authorised; read as a delivery error, not an opt-out of the action',
    });
  }
  return { props: out, warnings };
}
