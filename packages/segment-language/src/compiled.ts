import type { CatalogKind } from '@evp/core';

/**
 * A definition compiled to one parameterised ClickHouse query (compile/). Evaluating it
 * selects the member user ids of one app at one instant, over all the app's users or only some:
 *
 *   analytics.query<{ user_id: string }>(c.sql, { ...c.params, ...evaluationParams(app, now, users) })
 *
 * Parameters every compiled query takes besides `params` (names fixed here, types in the SQL):
 * - `app_id` String: every table read is filtered by it; no definition reads another app's rows.
 * - `now` DateTime64(3, 'UTC'): the instant of evaluation (injected clock in tests); relative windows
 *   are computed from it inside the query, so one compiled query serves every evaluation.
 * - `scoped` UInt8 and `users` Array(String): with scoped = 1 only those users are evaluated
 *   (incremental evaluation after a sink flush); with 0, every user of the app (full recompute).
 * User input never becomes SQL text: every literal of the definition is a named parameter in `params`.
 */
export interface CompiledSegment {
  sql: string;
  params: Record<string, unknown>;
  /** Canonical event names whose arrival can change membership; `*` when any event can (first_seen, last_seen, client facts). */
  events: string[];
  /** Catalog kinds whose records the query reads (`user` for profile conditions). */
  catalogs: CatalogKind[];
  /** True when membership can change with time alone (a relative window, last_seen): scheduled recomputes needed. */
  timeDriven: boolean;
  /** Ids of the segments referenced (transitively), already inlined into the query. */
  segments: string[];
}

/** The parameters of one evaluation, named as every compiled query expects them. */
export function evaluationParams(appId: string, now: Date, users?: readonly string[]): Record<string, unknown> {
  return { app_id: appId, now: now.toISOString().replace('T', ' ').replace('Z', ''), scoped: users ? 1 : 0, users: users ?? [] };
}
