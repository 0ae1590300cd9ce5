import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileSegment, type Condition, DEFINITION_RULES, LIMITS, validateDefinition } from '@evp/segment-language';

// docs/segments.md stays true: its examples are valid definitions, its rule table is the rules, its
// limits are the limits, and its SQL is what the compiler writes for the definition before it.
const doc = readFileSync(resolve(__dirname, '../../../../docs/segments.md'), 'utf8');
// The language's part: the engine's sections further down show work items and records, not definitions.
const language = doc.slice(0, doc.indexOf('## Evaluation and guarantees'));
const blocks = [...language.matchAll(/```(json|sql)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, text: m[2] as string }));
const saved: Record<string, Condition> = { buyers: { event: 'checkout' }, lapsed: { last_seen: { before: 'P30D' } } };
const ctx = { definitionOf: (id: string) => saved[id] };

describe('docs/segments.md', () => {
  it('every example definition is valid', () => {
    const definitions = blocks.filter((b) => b.lang === 'json' && !b.text.trimStart().startsWith('['));
    expect(definitions.length).toBeGreaterThanOrEqual(11);
    for (const b of definitions) expect({ example: b.text, result: validateDefinition(JSON.parse(b.text), ctx) }).toMatchObject({ result: { ok: true } });
  });

  it('lists exactly the validation rules, in order', () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` *\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(Object.keys(DEFINITION_RULES));
  });

  it('states the limits', () => {
    const table = doc.slice(doc.indexOf('### Limits'), doc.indexOf('### Validation rules'));
    const values = [...table.matchAll(/\| (\d+) *\|$/gm)].map((m) => Number(m[1]));
    expect(values).toEqual([LIMITS.depth, LIMITS.conditions, LIMITS.inlinedConditions, LIMITS.predicates, LIMITS.steps, LIMITS.values]);
  });

  it('shows the SQL the compiler writes for its example', () => {
    const i = blocks.findIndex((b) => b.lang === 'sql');
    const definition = JSON.parse((blocks[i - 1] as { text: string }).text) as Condition;
    expect(`${compileSegment(definition, ctx).sql}\n`).toBe(blocks[i]?.text);
  });
});
