import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CLIENT_QUIRKS } from '../quirks';
import { REPO_ROOT } from '../generate/generate';
import { RULES_REFERENCE_PATH } from '../generate/rules-doc';
import { RULES, type RuleName } from './registry';

/**
 * The rule registry checked both ways, as fastify checks lib/errors.js: every rule the code can emit is
 * registered and documented, and every registered rule is emitted by some code and documented.
 */
const names = Object.keys(RULES) as RuleName[];

/** Production TypeScript files under a directory (tests, fixtures and generated code left out). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return e === 'node_modules' || e === '__fixtures__' ? [] : sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

// The code that reports ingest rules: the contract (schemas/src) and the validator. The registry, the
// quirk lists (documentation of quirks, not emitters) and the doc generators are not evidence of emission.
const notEmitters = ['schemas/src/rules/', 'schemas/src/quirks/', 'schemas/src/generate/'];
const emitting = [join(REPO_ROOT, 'schemas/src'), join(REPO_ROOT, 'services/validator/src')]
  .flatMap(sources)
  .filter((p) => !notEmitters.some((d) => relative(REPO_ROOT, p).startsWith(d)))
  .map((p) => ({ path: relative(REPO_ROOT, p), text: readFileSync(p, 'utf8') }));

/** Rule names written where a reason is built: `rule: 'x'`, `rule: c ? 'x' : 'y'`, `warn('x', …)`. */
function emittedLiterals(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\brule: ([^,;}\n]*)/g)) for (const s of (m[1] as string).matchAll(/'([a-z][a-z0-9_]*)'/g)) out.push(s[1] as string);
  for (const m of text.matchAll(/\bwarn\('([a-z][a-z0-9_]*)'/g)) out.push(m[1] as string);
  return out;
}

describe('the rule registry', () => {
  it('names every rule the code writes as a literal', () => {
    const unregistered = emitting.flatMap((f) =>
      emittedLiterals(f.text)
        .filter((r) => !Object.hasOwn(RULES, r))
        .map((r) => `${f.path}: ${r}`),
    );
    expect(unregistered).toEqual([]);
  });

  it('has no rule that no code emits (a quirk’s spec rule is emitted by quirks/gate.ts)', () => {
    const otherwise = new Set(CLIENT_QUIRKS.map((q) => q.otherwise));
    const all = emitting.map((f) => f.text).join('\n');
    const unused = names.filter((n) => !otherwise.has(n) && !all.includes(`'${n}'`));
    expect(unused).toEqual([]);
  });

  it('has one quirk entry, with a gate, for every client-quirk rule, and every quirk is a registered warning', () => {
    const quirkRules = CLIENT_QUIRKS.map((q) => q.rule);
    expect(new Set(quirkRules).size).toBe(quirkRules.length);
    expect(names.filter((n) => RULES[n].from === 'client quirk' && !quirkRules.includes(n))).toEqual([]);
    for (const q of CLIENT_QUIRKS) {
      expect([q.rule, RULES[q.rule].severity]).toEqual([q.rule, 'warning']);
      expect(q.gate === 'every' || q.gate.length > 0).toBe(true);
      // What another client gets is the spec's rule: never itself a client quirk.
      expect([q.rule, RULES[q.otherwise].from]).not.toEqual([q.rule, 'client quirk']);
    }
  });

  it('is documented both ways: every rule in docs/reference/rules.md, every rule of that page registered, the page linked from the data contract', () => {
    const page = readFileSync(join(REPO_ROOT, RULES_REFERENCE_PATH), 'utf8');
    const documented = [...page.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1] as string);
    expect([...documented].sort()).toEqual([...names].sort());
    for (const n of names) expect(page).toContain(`| \`${n}\` | ${RULES[n].meaning.replace(/\|/g, '\\|')}`);
    expect(readFileSync(join(REPO_ROOT, 'docs/data-contract.md'), 'utf8')).toContain('docs/reference/rules.md');
  });

  it('gives every rule a severity, a meaning and an origin', () => {
    for (const n of names) {
      expect(['error', 'warning']).toContain(RULES[n].severity);
      expect(RULES[n].meaning.length).toBeGreaterThan(10);
      expect(RULES[n].from.length).toBeGreaterThan(0);
    }
  });
});
