import type { ConsoleBuild } from '../api';

/**
 * A stand-in for packages/console's build in the segmenter's own tests: one small script per page
 * (the segmenter serves whatever build it is given; the real one is built and checked in
 * packages/console and by the Chromium tests of dev/, which depend on both).
 */
export function consoleBuildStub(pages: readonly string[] = ['campaigns', 'segments', 'sql', 'health', 'keys', 'inspector', 'privacy', 'audit']): ConsoleBuild {
  const entries: Record<string, string> = Object.fromEntries([...pages.map((p) => [`${p}.js`, `${p}-STUB0000.js`]), ['console.css', 'console-STUB0000.css']]);
  return { entries, files: Object.fromEntries(Object.values(entries).map((f) => [f, `/* ${f} */`])) };
}
