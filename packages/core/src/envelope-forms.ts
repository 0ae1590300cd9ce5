/**
 * Which envelope form an upload body is, read the same way by the gateway (which answers the older
 * clients that send the earlier form as they need: docs/api.md) and the validator (which reads it).
 * The earlier form (spec 2.2) carries `u_id`, `d_info` and `app_info`; the current form (2.1) none.
 */
export function isEarlierEnvelope(env: Record<string, unknown>): boolean {
  return 'u_id' in env || 'd_info' in env || 'app_info' in env;
}
