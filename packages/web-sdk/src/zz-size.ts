import { gzipSync } from 'node:zlib';
import { bundleEsm, bundleWebSdk } from './bundle';
const gz = (s: string) => gzipSync(s, { level: 9 }).length;
(async () => {
  const f = await bundleWebSdk();
  const files = await bundleEsm(['index.ts']);
  const entry = [...files].find(([p]) => p.endsWith('/index.js'))![1];
  const chunks = [...files].filter(([p]) => p.includes('/chunks/'));
  const renderer = chunks.find(([, t]) => t.includes('adoptedStyleSheets'))!;
  const core = [entry, ...chunks.filter((c) => c !== renderer).map(([, t]) => t)].join('\n');
  console.log({ webjs: gz(f['web.js']), messages: gz(f['web-messages.js']), esmCore: gz(core), esmRenderer: gz(renderer[1]) });
})();
