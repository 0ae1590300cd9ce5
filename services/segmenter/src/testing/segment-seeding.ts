import type { Analytics, CatalogKind } from '@evp/core';
import { catalogToAvro, eventDef, type CanonicalEvent } from '@evp/schemas';
import { catalogRow, eventRow, TABLES } from '../sink';
import { pageEvent } from './fixtures';
import { compileSegment, type Condition, evaluationParams, validateDefinition } from '@evp/segment-language';

/**
 * Seeding events and catalog records for segment tests, through the sink's own row mapping, and
 * evaluating definitions against them. Each test file uses app ids of its own.
 */

let seq = 0;

/** A canonical event of `name` (its block from the contract) at `time` (epoch ms), other columns from the fixture. */
export function ev(app: string, user: string, name: string, time: number, props: Record<string, unknown>, extra: Partial<CanonicalEvent> = {}): CanonicalEvent {
  const def = eventDef(name);
  if (!def) throw new Error(`no event ${name}`);
  return {
    ...pageEvent,
    event_id: `${app}-${user}-${seq++}`,
    app_id: app,
    user_id: user,
    block: def.block,
    name: def.event,
    property: null,
    time,
    // No sent_at: the time is not corrected (a test of clock skew passes both in `extra`).
    sent_at: null,
    corrected_time: time,
    props,
    ...extra,
  };
}

/** A `checkout` of `user` at `time`, successful by default: a campaign goal's conversion in the campaign tests. */
export const checkout = (app: string, user: string, time: number, successful = true): CanonicalEvent =>
  ev(app, user, 'checkout', time, {
    id: `o-${user}-${time}`,
    cart_id: `c-${user}`,
    cart_price: 10,
    currency: 'KES',
    items: [{ id: 'i1' }],
    is_successful: successful,
  });

export interface CatalogSeed {
  app: string;
  kind: CatalogKind;
  id: string;
  record: Record<string, unknown>;
  /** Submission time: the latest wins. */
  at?: number;
}

export async function seed(analytics: Analytics, events: CanonicalEvent[], records: CatalogSeed[] = []): Promise<void> {
  if (events.length > 0) await analytics.insert(TABLES.events, events.map(eventRow));
  for (const r of records) {
    const value = catalogToAvro({
      app_id: r.app,
      id: r.id,
      kind: r.kind,
      received_at: r.at ?? 1_700_000_000_000,
      request_id: `req-${seq++}`,
      record: { id: r.id, ...r.record },
      extra: null,
    });
    await analytics.insert(TABLES.catalog(r.kind), [catalogRow(value)]);
  }
}

export type Definitions = Readonly<Record<string, Condition>>;

/** The sorted member ids of a definition (validated first: a test definition must be valid). */
export async function membersOf(
  analytics: Analytics,
  definition: unknown,
  app: string,
  now: number,
  opts: { users?: readonly string[]; segments?: Definitions } = {},
): Promise<string[]> {
  const definitionOf = (id: string) => opts.segments?.[id];
  const v = validateDefinition(definition, { definitionOf });
  if (!v.ok) throw new Error(`invalid test definition: ${JSON.stringify(v.reasons)}`);
  const c = compileSegment(v.value, { definitionOf });
  const rows = await analytics.query<{ user_id: string }>(c.sql, { ...c.params, ...evaluationParams(app, new Date(now), opts.users) });
  return rows.map((r) => r.user_id).sort();
}
