/**
 * `npm run build -w @evp/web-sdk`: writes packages/web-sdk/dist, a publishable package
 * (`npm publish packages/web-sdk/dist`): the ESM build with its .d.ts types, `exports` for the
 * entry and each block, and the script build (`web.js`, `web-messages.js`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleEsm, bundleWebSdk } from '../bundle';

const root = join(__dirname, '..', '..');
const dist = join(root, 'dist');

async function main() {
  rmSync(dist, { recursive: true, force: true });
  const blocks = readdirSync(join(root, 'src', 'blocks')).map((f) => `blocks/${f}`);
  const files = await bundleEsm(['index.ts', ...blocks]);
  for (const [path, text] of files) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  for (const [name, text] of Object.entries(await bundleWebSdk())) writeFileSync(join(dist, name), text);
  execFileSync('npx', ['tsc', '--declaration', '--emitDeclarationOnly', '--noEmit', 'false', '--outDir', dist, '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
    cwd: root,
  });
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; description: string };
  const exp = (p: string) => ({ types: `./${p}.d.ts`, import: `./${p}.js` });
  writeFileSync(
    join(dist, 'package.json'),
    `${JSON.stringify(
      {
        name: '@evp/web-sdk',
        version: pkg.version,
        description: pkg.description,
        type: 'module',
        sideEffects: false,
        module: './index.js',
        types: './index.d.ts',
        exports: {
          '.': exp('index'),
          ...Object.fromEntries(blocks.map((b) => [`./${b.replace(/\.ts$/, '')}`, exp(b.replace(/\.ts$/, ''))])),
          './web.js': './web.js',
          './web-messages.js': './web-messages.js',
        },
        files: ['**/*.js', '**/*.d.ts'],
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${dist}`);
}

void main();
