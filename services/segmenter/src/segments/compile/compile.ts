import type { CompiledSegment } from '../compiled';
import type { Condition } from '../definition';
import { inlineSegments, type DefinitionLookup } from '../language/segment-refs';
import { dependencies } from './analysis';
import { conditionSql, QueryParts } from './leaves';
import { APP, inScope } from './params';

export interface CompileContext {
  /** The app's other segments' definitions by id, for `{"segment": id}` (inlined into the query). */
  definitionOf: DefinitionLookup;
}

/**
 * Duplicates of an event (re-delivery, re-sent uploads) share its event_id and so its sorting key:
 * FINAL collapses them at query time, which makes counts and sums exact (docs/analytics.md,
 * "Duplicates"). Catalog tables need it for "latest version" anyway. The app, scope and name
 * filters are PREWHERE: applied before FINAL's merge, which is exact because every copy of a row
 * has the same app, user and name (only received_at, request_id and inserted_at differ), and which
 * keeps a scoped evaluation from merging the whole app's rows (a plain WHERE is applied after FINAL).
 */
const EVENTS = 'events FINAL';

const indent = (lines: string[], by: string): string => lines.map((l) => by + l).join(',\n');

/**
 * A validated definition → one parameterised ClickHouse query selecting the member user ids of an
 * app (compiled.ts has the contract). Shape, in one pass over the app's events:
 *
 *   SELECT user_id FROM (SELECT user_id, <one aggregate per leaf> FROM events FINAL
 *                        PREWHERE app, scope [, name IN the definition's events] GROUP BY user_id) AS e
 *   [FULL | LEFT] JOIN (SELECT id AS user_id, <profile fields> FROM catalog_user FINAL PREWHERE app, scope) AS u
 *   USING (user_id) WHERE <the conditions combined>
 *
 * When users without events can be members (`not`, a count of 0, …) every user with any event or a
 * user catalog record is a candidate (FULL JOIN); otherwise only users with the definition's events
 * are read (and the catalog joined only for profile fields).
 */
export function compileSegment(definition: Condition, ctx: CompileContext): CompiledSegment {
  const { condition, segments } = inlineSegments(definition, ctx.definitionOf);
  const deps = dependencies(condition);
  const q = new QueryParts();
  const where = conditionSql(condition, q);

  const eventFilter = [`app_id = ${APP}`, inScope('user_id')];
  if (!deps.everyUser && !deps.events.includes('*')) eventFilter.push(`name IN ${q.params.add(deps.events, 'Array(String)')}`);
  const eventColumns = ['user_id', ...[...q.eventColumns].map(([expr, alias]) => `${expr} AS ${alias}`)];
  const parts = ['SELECT user_id', 'FROM', '(', `    SELECT\n${indent(eventColumns, '        ')}`];
  parts.push(`    FROM ${EVENTS}`, `    PREWHERE ${eventFilter.join(' AND ')}`, '    GROUP BY user_id', ') AS e');
  if (deps.joinsUsers) {
    const userColumns = ['id AS user_id', ...[...q.userColumns].map(([expr, alias]) => `${expr} AS ${alias}`)];
    parts.push(`${deps.everyUser ? 'FULL OUTER' : 'LEFT'} JOIN`, '(', `    SELECT\n${indent(userColumns, '        ')}`);
    parts.push('    FROM catalog_user FINAL', `    PREWHERE app_id = ${APP} AND ${inScope('id')}`, ') AS u USING (user_id)');
  }
  parts.push(`WHERE ${where}`);
  // A user the other side lacks gets that side's defaults (0 counts, NULL values): what the
  // conditions are written against, whatever the server's profile says.
  if (deps.joinsUsers) parts.push('SETTINGS join_use_nulls = 0');
  return {
    sql: parts.join('\n'),
    params: q.params.values,
    events: deps.events,
    catalogs: deps.catalogs,
    timeDriven: deps.timeDriven,
    segments,
  };
}
