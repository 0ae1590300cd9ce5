import type { Request, Response, Router } from 'express';
import type { ConsoleAssets } from './assets';
import { CAMPAIGNS_BODY, CAMPAIGN_BODY, HEALTH_BODY, SEGMENTS_BODY, SEGMENT_BODY, SQL_BODY } from './bodies';
import { CONSOLE_CSP, CONSOLE_CSS_PATH, consolePage, type ShellOptions } from './shell';
import { CONSOLE_CSS } from './style';

export { loadConsoleAssets, CONSOLE_MANIFEST, type ConsoleAssets, type ConsoleBuild } from './assets';
export { CONSOLE_CSP, CONSOLE_NAV, consolePage, type ShellOptions } from './shell';
export { parseSqlExamples } from './sql-examples';
export * from './words';

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

/** What a file named by its content may be cached for: a year, never re-validated (a new build is a new name). */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Where the console's built files are served (each named by its content hash). */
const ASSETS = '/console/assets';

/** Chart.js's browser build. Pages ask for it with its hash as `?v=`, so a browser keeps it for a year and a new version is a new URL. */
const CHART_PATH = `${ASSETS}/chart.umd.min.js`;

/**
 * A page of the console: its path(s), the shell's options, and its script, `entry`: the page
 * packages/console/src/pages/<entry>/main.ts, served under its hashed name. `chart`: the page draws
 * with Chart.js (loaded before the script). Adding a page: a row here with its markup (bodies.ts),
 * a folder there; the nav entry in shell.ts.
 */
export interface ConsolePage extends Omit<ShellOptions, 'scripts'> {
  paths: readonly string[];
  entry: string;
  chart?: boolean;
}

const CONSOLE_PAGES: readonly ConsolePage[] = [
  { paths: ['/console/campaigns', '/console/campaigns/:campaign_id'], section: 'campaigns', title: 'Campaigns · console', body: CAMPAIGNS_BODY, chart: true, entry: 'campaigns' },
  { paths: ['/console/segments', '/console/segments/:segment_id'], section: 'segments', title: 'Segments · console', body: SEGMENTS_BODY, chart: true, entry: 'segments' },
  { paths: ['/console/sql'], section: 'sql', title: 'SQL · console', body: SQL_BODY, chart: true, entry: 'sql' },
  { paths: ['/console/health'], section: 'health', title: 'Health · console', body: HEALTH_BODY, chart: true, entry: 'health' },
];

/** A campaign's and a segment's own page have their own markup under the list's path. */
const DETAIL_BODIES: Readonly<Record<string, string>> = { '/console/campaigns/:campaign_id': CAMPAIGN_BODY, '/console/segments/:segment_id': SEGMENT_BODY };
const DETAIL_TITLES: Readonly<Record<string, string>> = { '/console/campaigns/:campaign_id': 'Campaign · console', '/console/segments/:segment_id': 'Segment · console' };

/**
 * The console (docs/console.md): Campaigns, Segments, SQL and Health pages on the one base URL, all
 * in the one shell (shell.ts) with the inspector. Pages and scripts need no key; every call they make
 * takes the app's API key from the prompt. `/console/keys` is the Keys page's (not served here).
 */
export function consoleRoutes(router: Router, assets: ConsoleAssets): void {
  for (const p of CONSOLE_PAGES) {
    const script = `${ASSETS}/${assets.build.entries[p.entry]}`;
    const scripts = [...(p.chart ? [`${CHART_PATH}?v=${assets.chartHash}`] : []), script];
    for (const path of p.paths) {
      const html = consolePage({ ...p, body: DETAIL_BODIES[path] ?? p.body, title: DETAIL_TITLES[path] ?? p.title, scripts });
      router.get(path, serveFile('text/html', html));
    }
  }
  router.get('/console', (_req, res) => res.redirect(302, '/console/campaigns'));
  router.get(CONSOLE_CSS_PATH, serveFile('text/css', CONSOLE_CSS));
  router.get(CHART_PATH, serveFile('text/javascript', assets.chartJs, IMMUTABLE));
  router.get(`${ASSETS}/sql-examples.json`, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).json(assets.sqlExamples);
  });
  for (const [name, text] of Object.entries(assets.build.files)) router.get(`${ASSETS}/${name}`, serveFile('text/javascript', text, IMMUTABLE));
}
