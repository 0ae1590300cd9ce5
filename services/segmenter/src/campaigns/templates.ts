import type { CatalogKind } from '@evp/core';
import { Liquid, Tag, UndefinedVariableError, analyzeSync, type TagToken, type Template, type TopLevelToken } from 'liquidjs';
import { catalogScope, withoutNulls, type CatalogRecords, type CatalogRef, type TemplateData } from './template-data';
import { checkVariable, type TemplateScope } from './template-variables';

/**
 * `content.title` and `content.body` of a campaign's action are Liquid templates (liquidjs;
 * docs/campaigns.md, "Templates"). Checked when the campaign is saved (syntax, tags, variables
 * against the data contract); rendered per user with strict variables, so a variable the user does
 * not have skips the user with a reason instead of leaving a blank. Output is plain text: nothing
 * is HTML-escaped (an action's content is shown by the app, not put into a page).
 */

export const TEMPLATE_FIELDS = ['title', 'body'] as const;
export type Content = Record<(typeof TEMPLATE_FIELDS)[number], string>;

export interface TemplateProblem {
  path: string;
  rule: 'template_syntax' | 'template_tag' | 'unknown_variable';
  message: string;
}

export interface CompiledContent {
  title: Template[];
  body: Template[];
}

/**
 * - rendered: the content for this user;
 * - needs_catalog: catalog records the templates read are not loaded yet (load them, render again);
 * - skipped: the user gets nothing, for `reason`: `template_variable_missing: <variable>` (a
 *   variable missing and no `default` filter; the variable as far as it existed plus the first
 *   missing step, e.g. `user.name` or `catalog.drug.D-1`), or `template_error: <message>` (a filter
 *   failed, a limit was hit).
 */
export type RenderOutcome = { status: 'rendered'; content: Content } | { status: 'needs_catalog'; refs: CatalogRef[] } | Skipped;
interface Skipped {
  status: 'skipped';
  reason: string;
}

/** Loads catalog records of one kind by id (the latest version of each); ids it does not return have no record. */
export type CatalogLoader = (kind: CatalogKind, ids: string[]) => Promise<ReadonlyMap<string, Record<string, unknown>>>;

/** Bounds one template's cost: its source is bounded by the action store's content limits already. */
const TEMPLATE_LIMITS = {
  /** Characters parsed per template (parseLimit). */
  parse: 20_000,
  /** Milliseconds per render (renderLimit). */
  renderMs: 1_000,
  /** Liquid's memory units per render (memoryLimit: array and string allocations). */
  memory: 10_000_000,
  /** Rounds of catalog loading per render: a lookup whose id is read from another looked-up record needs a second. */
  catalogRounds: 3,
} as const;

/** Tags that read other templates (from files): a campaign's template is self-contained. */
const REFUSED_TAGS = ['include', 'render', 'layout'] as const;

class RefusedTagError extends Error {}

class RefusedTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    throw new RefusedTagError(
      `the ${token.name} tag reads another template: a campaign's templates are self-contained (${REFUSED_TAGS.join(', ')} are not available)`,
    );
  }

  render(): void {
    // Never reached: construction throws.
  }
}

/** One engine per service (composition root); stateless across renders. */
export class TemplateEngine {
  readonly #liquid: Liquid;

  constructor() {
    this.#liquid = new Liquid({
      strictVariables: true,
      // `{% if user.name %}` and `| default: …` test for a variable without failing on its absence.
      lenientIf: true,
      strictFilters: true,
      // Only the data's own properties: no prototype reads (`user.constructor`).
      ownPropertyOnly: true,
      // No file system: with `templates`, lookups go to this empty map (and the tags are refused anyway).
      templates: {},
      // The `date` filter in UTC, English, whatever the host's zone and locale.
      timezoneOffset: 0,
      locale: 'en-US',
      parseLimit: TEMPLATE_LIMITS.parse,
      renderLimit: TEMPLATE_LIMITS.renderMs,
      memoryLimit: TEMPLATE_LIMITS.memory,
    });
    for (const name of REFUSED_TAGS) this.#liquid.registerTag(name, RefusedTag);
  }

  /** Reasons of one template at `path` (e.g. `$.action.content.title`), each variable checked against `scope`. */
  check(path: string, source: string, scope: TemplateScope): TemplateProblem[] {
    let templates: Template[];
    try {
      templates = this.#liquid.parse(source);
    } catch (err) {
      const refused = (err as { originalError?: unknown }).originalError instanceof RefusedTagError;
      return [{ path, rule: refused ? 'template_tag' : 'template_syntax', message: (err as Error).message }];
    }
    const reasons: TemplateProblem[] = [];
    const seen = new Set<string>();
    // In the order they are written (the analysis groups them by name).
    const variables = Object.values(analyzeSync(templates, { partials: false }).globals)
      .flat()
      .sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col);
    for (const variable of variables) {
      const why = checkVariable(variable.segments, scope);
      if (why === undefined || seen.has(why)) continue;
      seen.add(why);
      const { row, col } = variable.location;
      reasons.push({ path, rule: 'unknown_variable', message: `${variable.toString()} (line ${row}, column ${col}): ${why}` });
    }
    return reasons;
  }

  /** Content checked by `check` → parsed templates. Throws on a syntax error (the document was not validated). */
  compile(content: Content): CompiledContent {
    return { title: this.#liquid.parse(content.title), body: this.#liquid.parse(content.body) };
  }

  /** One user's content from loaded catalog records; `needs_catalog` when the templates read records not loaded. */
  render(compiled: CompiledContent, data: TemplateData, records: CatalogRecords): RenderOutcome {
    const needs = new Map<string, CatalogRef>();
    const scope: Record<string, unknown> = {
      user: withoutNulls(data.user),
      trigger: withoutNulls(data.trigger),
      catalog: catalogScope(records, needs),
    };
    if (data.event !== undefined) scope.event = withoutNulls(data.event);
    try {
      const title = this.#liquid.renderSync(compiled.title, scope) as string;
      const body = this.#liquid.renderSync(compiled.body, scope) as string;
      if (needs.size > 0) return { status: 'needs_catalog', refs: [...needs.values()] };
      return { status: 'rendered', content: { title, body } };
    } catch (err) {
      // A value that stood in for a record not loaded may be what failed: load, then judge.
      if (needs.size > 0) return { status: 'needs_catalog', refs: [...needs.values()] };
      return { status: 'skipped', reason: skipReason(err) };
    }
  }

  /**
   * Every user's content, loading the catalog records the templates read in batches: one `load`
   * call per kind per round over all the users' lookups (a round per level of lookups nested in
   * each other, at most TEMPLATE_LIMITS.catalogRounds). `records` keeps what was loaded (a caller
   * may share it across batches).
   */
  async renderAll(
    compiled: CompiledContent,
    users: readonly TemplateData[],
    load: CatalogLoader,
    records: CatalogRecords,
  ): Promise<(RenderOutcome & { status: 'rendered' | 'skipped' })[]> {
    const outcomes = users.map((data) => this.render(compiled, data, records));
    for (let round = 0; round < TEMPLATE_LIMITS.catalogRounds; round++) {
      const waiting = outcomes.flatMap((o, i) => (o.status === 'needs_catalog' ? [i] : []));
      if (waiting.length === 0) break;
      const byKind = new Map<CatalogKind, Set<string>>();
      for (const i of waiting) {
        for (const ref of (outcomes[i] as { refs: CatalogRef[] }).refs) {
          if (records.get(ref.kind, ref.id) !== undefined) continue;
          byKind.set(ref.kind, (byKind.get(ref.kind) ?? new Set()).add(ref.id));
        }
      }
      for (const [kind, ids] of byKind) {
        const found = await load(kind, [...ids]);
        for (const id of ids) records.set(kind, id, found.get(id) ?? null);
      }
      for (const i of waiting) outcomes[i] = this.render(compiled, users[i] as TemplateData, records);
    }
    return outcomes.map((o) =>
      o.status === 'needs_catalog'
        ? { status: 'skipped', reason: `template_error: catalog lookups nest deeper than ${TEMPLATE_LIMITS.catalogRounds} levels` }
        : o,
    );
  }
}

function skipReason(err: unknown): string {
  if (err instanceof UndefinedVariableError) {
    const name = (err.originalError as { variableName?: unknown } | undefined)?.variableName;
    if (typeof name === 'string') return `template_variable_missing: ${name}`;
  }
  return `template_error: ${err instanceof Error ? err.message : String(err)}`;
}
