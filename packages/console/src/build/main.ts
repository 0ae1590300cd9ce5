/**
 * `npm run build -w @evp/console`: writes packages/console/dist, the console's build as the
 * segmenter's image serves it (deploy/docker/Dockerfile copies it to CONSOLE_ASSETS_DIR): every
 * hashed file, and manifest.json naming each page's script and stylesheet.
 */
import { join } from 'node:path';
import { bundleConsole, writeConsoleBuild } from '../bundle';

const dist = join(__dirname, '..', '..', 'dist');

async function main() {
  writeConsoleBuild(await bundleConsole(), dist);
  console.log(`wrote ${dist}`);
}

void main();
