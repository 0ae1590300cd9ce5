import { gzipSync } from 'node:zlib';
import { bundleEsm, bundleWebSdk } from './bundle';

/**
 * The size budgets (issues 23 and 36): the core ≤ 8 KB gzip; each lazily loaded part has its own
 * budget and is not in the core (loaded only when needed), in the script build and in the ESM build.
 */
const KB = 1024;
const gz = (s: string) => gzipSync(s, { level: 9 }).length;

/** Each lazily loaded part: its script build file, its ESM chunk's name, a text only its code holds, and its budget. */
const PARTS = [
  { file: 'web-messages.js', chunk: 'render', mark: 'adoptedStyleSheets', budget: 3 * KB },
  { file: 'web-actions.js', chunk: 'actions', mark: '/action/sdk/pull', budget: 2 * KB },
  { file: 'web-errors.js', chunk: 'errors', mark: 'unhandledrejection', budget: 1 * KB },
  { file: 'web-context.js', chunk: 'context', mark: 'utm_', budget: 1 * KB },
  { file: 'web-vitals.js', chunk: 'vitals', mark: 'largest-contentful-paint', budget: 1 * KB },
  { file: 'web-split.js', chunk: 'split', mark: '.data.length', budget: 1 * KB },
] as const;

describe('size budget', () => {
  it('script build: web.js ≤ 8 KB gzip, each part within its budget and only in its own file', async () => {
    const files = await bundleWebSdk();
    expect(Object.keys(files).sort()).toEqual(['web.js', ...PARTS.map((p) => p.file)].sort());
    expect(gz(files['web.js'])).toBeLessThanOrEqual(8 * KB);
    for (const p of PARTS) {
      expect(gz(files[p.file])).toBeLessThanOrEqual(p.budget);
      expect(files['web.js']).not.toContain(p.mark);
      expect(files[p.file]).toContain(p.mark);
    }
  });

  it('ESM build: the entry and the chunks it imports statically ≤ 8 KB gzip; each part a chunk within its budget, reached by dynamic import', async () => {
    const files = await bundleEsm(['index.ts']);
    const name = (p: string) => p.slice(p.lastIndexOf('/') + 1);
    const entry = [...files].find(([p]) => p.endsWith('/index.js'))![1];
    const chunks = new Map([...files].filter(([p]) => p.includes('/chunks/')).map(([p, t]) => [name(p), t]));
    // The core: the entry and, transitively, every chunk imported statically (`from"./chunks/…"`).
    const core = [entry];
    const statics = (text: string) => [...text.matchAll(/from\s*["']\.\/(?:chunks\/)?([^"']+)["']/g)].map((m) => m[1]!);
    const seen = new Set<string>();
    for (let i = 0; i < core.length; i++)
      for (const c of statics(core[i]!))
        if (!seen.has(c) && chunks.has(c)) {
          seen.add(c);
          core.push(chunks.get(c)!);
        }
    const coreText = core.join('\n');
    expect(gz(coreText)).toBeLessThanOrEqual(8 * KB);
    for (const p of PARTS) {
      const [chunk, text] = [...chunks].find(([n]) => n.startsWith(`${p.chunk}-`))!;
      expect(seen.has(chunk)).toBe(false);
      expect(coreText).not.toContain(p.mark);
      expect(text).toContain(p.mark);
      expect(gz(text)).toBeLessThanOrEqual(p.budget);
      expect(entry).toMatch(new RegExp(`import\\(["'][^"']*chunks/${p.chunk}-`));
    }
  });
});
