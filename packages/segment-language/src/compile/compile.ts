import type { CompiledSegment } from '../compiled';
import type { Condition } from '../definition';
import { inlineSegments, type DefinitionLookup } from '../language/segment-refs';
import { dependencies } from './analysis';
import { conditionSql, QueryParts } from './leaves';
import { APP, inScope } from './params';
import { timeSpan } from './windows';

export interface CompileContext {
  /** The app's other segments' definitions by id, for `{"segment": id}` (inlined into the query). */
  definitionOf: DefinitionLookup;
}

/**
 * Duplicates of an event (re-delivery, re-sent uploads) share its event_id and so its sorting key:
 * FINAL collapses them at query time, which makes counts and sums exact (docs/analytics.md,
 * "Duplicates"). Catalog tables need it for "latest version" anyway. The app, scope, name and time
 * filters are PREWHERE: applied before FINAL's merge, which is exact because every copy of a row
 * has the same app, user, name and time (only received_at, request_id and inserted_at differ), and
 * which keeps a scoped evaluation from merging the whole app's rows (a plain WHERE is applied after
 * FINAL). The pass over every event of the user reads without FINAL: what it computes (first and last
 * time, the latest event's values) is the same with a duplicate.
 */
const EVENTS = 'events FINAL';

const indent = (lines: string[], by: string): string => lines.map((l) => by + l).join(',\n');

function subquery(columns: string[], from: string, prewhere: string[]): string {
  return ['(', `    SELECT\n${indent(columns, '        ')}`, `    FROM ${from}`, `    PREWHERE ${prewhere.join(' AND ')}`].join('\n');
}

function aggregates(columns: Map<string, string>): string[] {
  return ['user_id', ...[...columns].map(([expr, alias]) => `${expr} AS ${alias}`)];
}

/**
 * A validated definition → one parameterised ClickHouse query selecting the member user ids of an
 * app (compiled.ts has the contract). Shape, one pass over each table it needs:
 *
 *   SELECT user_id FROM
 *     (SELECT user_id, <first/last seen, client facts> FROM events PREWHERE app, scope [, time span] GROUP BY user_id) AS a
 *     LEFT JOIN
 *     (SELECT user_id, <one aggregate per event leaf> FROM events FINAL PREWHERE app, scope, names [, time span] GROUP BY user_id) AS e
 *   [FULL | LEFT] JOIN (SELECT id AS user_id, <profile fields> FROM catalog_user FINAL PREWHERE app, scope) AS u
 *   USING (user_id) WHERE <the conditions combined>
 *
 * `e` reads only the definition's event names and, when every event leaf has a window, only the
 * span of the windows. `a` is there when a leaf reads every event (first/last seen, client facts) or
 * users without the definition's events can be members (`not`, a count of 0, …): every user with any
 * event is then a candidate, and with a user catalog record too (FULL JOIN). It reads only the span
 * of the windows when no user without an event in it can be a member. Without `a`, `e` gives the
 * candidates, and the catalog is joined only for profile fields.
 */
export function compileSegment(definition: Condition, ctx: CompileContext): CompiledSegment {
  const { condition, segments } = inlineSegments(definition, ctx.definitionOf);
  const deps = dependencies(condition);
  const q = new QueryParts();
  const where = conditionSql(condition, q);
  const scope = [`app_id = ${APP}`, inScope('user_id')];
  const from: string[] = [];
  if (deps.anyEvent) {
    const span = deps.anyEventSinceWindows ? timeSpan([...q.eventWindows, ...q.lastSeenWindows], q.params, { end: false }) : undefined;
    from.push(subquery(aggregates(q.anyEventColumns), 'events', span ? [...scope, span] : scope), '    GROUP BY user_id', ') AS a');
  }
  if (q.eventColumns.size > 0) {
    const filter = [...scope, `name IN ${q.params.add(deps.names, 'Array(String)')}`];
    const span = timeSpan(q.eventWindows, q.params, { end: true });
    if (span) filter.push(span);
    if (from.length > 0) from.push('LEFT JOIN');
    from.push(subquery(aggregates(q.eventColumns), EVENTS, filter), '    GROUP BY user_id', `) AS e${from.length > 0 ? ' USING (user_id)' : ''}`);
  }
  if (from.length === 0) throw new Error('a definition reads no events: it was not validated');
  if (deps.joinsUsers) {
    const userColumns = ['id AS user_id', ...[...q.userColumns].map(([expr, alias]) => `${expr} AS ${alias}`)];
    from.push(
      `${deps.everyUser ? 'FULL OUTER' : 'LEFT'} JOIN`,
      subquery(userColumns, 'catalog_user FINAL', [`app_id = ${APP}`, inScope('id')]),
      ') AS u USING (user_id)',
    );
  }
  const parts = ['SELECT user_id', 'FROM', ...from, `WHERE ${where}`];
  // A user the other side lacks gets that side's defaults (0 counts, NULL values): what the
  // conditions are written against, whatever the server's profile says.
  if (from.some((line) => line.endsWith(' JOIN'))) parts.push('SETTINGS join_use_nulls = 0');
  return {
    sql: parts.join('\n'),
    params: q.params.values,
    events: deps.events,
    catalogs: deps.catalogs,
    timeDriven: deps.timeDriven,
    segments,
  };
}
