import type { Router } from 'express';
import { serveFile } from '../console';
import { KEYS_CSS, KEYS_HTML } from './page';
import { KEYS_JS } from './script';

/** Where the page lives on the base URL (its assets under it; they need no key, the page asks for one). */
export const CONSOLE_KEYS_PATHS = { page: '/console/keys', script: '/console/keys/keys.js', style: '/console/keys/keys.css' } as const;

/** Serves the console's Keys page; its data comes from GET /v1/keys with the API key the page asks for. */
export function consoleKeysRoutes(router: Router): void {
  router.get(CONSOLE_KEYS_PATHS.page, serveFile('text/html', KEYS_HTML));
  router.get(CONSOLE_KEYS_PATHS.script, serveFile('text/javascript', KEYS_JS));
  router.get(CONSOLE_KEYS_PATHS.style, serveFile('text/css', KEYS_CSS));
}
