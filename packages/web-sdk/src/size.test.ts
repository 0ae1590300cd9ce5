import { gzipSync } from 'node:zlib';
import { bundleEsm, bundleWebSdk } from './bundle';

/**
 * The size budget (issue 23): the core ≤ 8 KB gzip, the in-app message renderer ≤ 3 KB gzip and
 * not in the core (loaded only when a message is shown), in the script build and in the ESM build.
 */
const KB = 1024;
const gz = (s: string) => gzipSync(s, { level: 9 }).length;

describe('size budget', () => {
  it('script build: web.js ≤ 8 KB gzip, web-messages.js ≤ 3 KB gzip, the renderer only in the second', async () => {
    const files = await bundleWebSdk();
    expect(gz(files['web.js'])).toBeLessThanOrEqual(8 * KB);
    expect(gz(files['web-messages.js'])).toBeLessThanOrEqual(3 * KB);
    // The renderer's own code (its stylesheet) is not in the core.
    expect(files['web.js']).not.toContain('adoptedStyleSheets');
    expect(files['web-messages.js']).toContain('adoptedStyleSheets');
  });

  it('ESM build: the entry ≤ 8 KB gzip, the renderer a separate chunk ≤ 3 KB gzip reached by dynamic import', async () => {
    const files = await bundleEsm(['index.ts']);
    const entry = [...files].find(([p]) => p.endsWith('/index.js'))![1];
    const chunks = [...files].filter(([p]) => p.includes('/chunks/'));
    const renderer = chunks.find(([, t]) => t.includes('adoptedStyleSheets'));
    expect(renderer).toBeDefined();
    expect(entry).not.toContain('adoptedStyleSheets');
    expect(gz(renderer![1])).toBeLessThanOrEqual(3 * KB);
    // The core is the entry plus the chunks it imports statically (everything but the renderer).
    const core = [entry, ...chunks.filter((c) => c !== renderer).map(([, t]) => t)].join('\n');
    expect(gz(core)).toBeLessThanOrEqual(8 * KB);
    expect(entry).toMatch(/import\(["'][^"']*chunks\/render-/);
  });
});
