import type { Request, Response, Router } from 'express';
import type { ConsoleAssets } from './assets';
import { CAMPAIGNS_BODY, CAMPAIGN_BODY, HEALTH_BODY, SEGMENTS_BODY, SEGMENT_BODY, SQL_BODY } from './bodies';
import { CLIENT_CAMPAIGNS } from './client-campaigns';
import { CLIENT_COMMON, CLIENT_START } from './client-common';
import { CLIENT_HEALTH } from './client-health';
import { CLIENT_SEGMENTS } from './client-segments';
import { CLIENT_SQL } from './client-sql';
import { CONSOLE_CSP, CONSOLE_CSS_PATH, consolePage } from './shell';
import { CONSOLE_CSS } from './style';

export { loadConsoleAssets, type ConsoleAssets } from './assets';
export { CONSOLE_CSP, CONSOLE_NAV, consolePage, type ShellOptions } from './shell';
export { parseSqlExamples } from './sql-examples';
export * from './words';

const CONSOLE_JS_PATH = '/console/assets/console.js';
const CONSOLE_JS = [CLIENT_COMMON, CLIENT_CAMPAIGNS, CLIENT_SEGMENTS, CLIENT_SQL, CLIENT_HEALTH, CLIENT_START].join('\n');

/** A file of the console, with the policy that lets a page load nothing but this origin's files. */
export function serveFile(type: string, body: string, cacheControl = 'no-cache') {
  return (_req: Request, res: Response) => {
    res.setHeader('Content-Type', `${type}; charset=utf-8`);
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', cacheControl);
    res.status(200).send(body);
  };
}

/** Chart.js's browser build. Pages ask for it with its hash as `?v=`, so a browser keeps it for a year and a new version is a new URL. */
const CHART_PATH = '/console/assets/chart.umd.min.js';

/**
 * The console (docs/console.md): Campaigns, Segments, SQL and Health pages on the one base URL, all
 * in the one shell (shell.ts) with the inspector. Pages and scripts need no key; every call they make
 * takes the app's API key from the prompt. `/console/keys` is the Keys page's (not served here).
 */
export function consoleRoutes(router: Router, assets: ConsoleAssets): void {
  const scripts = [`${CHART_PATH}?v=${assets.chartHash}`, CONSOLE_JS_PATH];
  const page = (section: string, title: string, body: string) => serveFile('text/html', consolePage({ section, title, body, scripts }));
  router.get('/console', (_req, res) => res.redirect(302, '/console/campaigns'));
  router.get('/console/campaigns', page('campaigns', 'Campaigns · console', CAMPAIGNS_BODY));
  router.get('/console/campaigns/:campaign_id', page('campaigns', 'Campaign · console', CAMPAIGN_BODY));
  router.get('/console/segments', page('segments', 'Segments · console', SEGMENTS_BODY));
  router.get('/console/segments/:segment_id', page('segments', 'Segment · console', SEGMENT_BODY));
  router.get('/console/sql', page('sql', 'SQL · console', SQL_BODY));
  router.get('/console/health', page('health', 'Health · console', HEALTH_BODY));
  router.get(CONSOLE_JS_PATH, serveFile('text/javascript', CONSOLE_JS));
  router.get(CONSOLE_CSS_PATH, serveFile('text/css', CONSOLE_CSS));
  router.get(CHART_PATH, serveFile('text/javascript', assets.chartJs, 'public, max-age=31536000, immutable'));
  router.get('/console/assets/sql-examples.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).json(assets.sqlExamples);
  });
}
