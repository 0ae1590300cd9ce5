import type { Request, Response, Router } from 'express';
import { ApiError } from '@evp/core';
import type { ConsoleAssets } from './assets';
import * as bodies from './bodies';
import { CONSOLE_CSP, consolePage, type ShellOptions } from './shell';

export { loadConsoleAssets, type ConsoleAssets, type ConsoleBuild } from './assets';
export { CONSOLE_CSP, CONSOLE_NAV, consolePage, type ShellOptions } from './shell';
export { parseSqlExamples } from './sql-examples';
export * from './words';

/** A file of the console, with the policy that lets a page load nothing but this origin's files. */
function serveFile(type: string, body: string, cacheControl = 'no-cache') {
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

/** Where the console's built files are served, each under its content-hashed name. */
const ASSETS = '/console/assets';

/** Chart.js's browser build. Pages ask for it with its hash as `?v=`, so a browser keeps it for a year and a new version is a new URL. */
const CHART_PATH = `${ASSETS}/chart.umd.min.js`;

/**
 * A page of the console: its path, the shell's options (nav section, title, markup from
 * bodies.ts), and `entry`, its script: packages/console/src/pages/<entry>/main.ts (with its
 * style.css, if it has one), served under its hashed name. `chart`: it draws with Chart.js, loaded
 * before its script. Adding a page: a row here, its markup in bodies.ts, its folder in
 * packages/console/src/pages, and (for a new section) its nav entry in shell.ts.
 */
interface ConsolePage extends Omit<ShellOptions, 'scripts' | 'stylesheets'> {
  path: string;
  entry: string;
  chart?: boolean;
}

const CONSOLE_PAGES: readonly ConsolePage[] = [
  { path: '/console/campaigns', section: 'campaigns', title: 'Campaigns · console', body: bodies.CAMPAIGNS_BODY, entry: 'campaigns', chart: true },
  { path: '/console/campaigns/:campaign_id', section: 'campaigns', title: 'Campaign · console', body: bodies.CAMPAIGN_BODY, entry: 'campaigns', chart: true },
  { path: '/console/segments', section: 'segments', title: 'Segments · console', body: bodies.SEGMENTS_BODY, entry: 'segments', chart: true },
  { path: '/console/segments/:segment_id', section: 'segments', title: 'Segment · console', body: bodies.SEGMENT_BODY, entry: 'segments', chart: true },
  { path: '/console/sql', section: 'sql', title: 'SQL · console', body: bodies.SQL_BODY, entry: 'sql', chart: true },
  { path: '/console/health', section: 'health', title: 'Health · console', body: bodies.HEALTH_BODY, entry: 'health', chart: true },
  {
    path: '/inspector',
    section: 'inspector',
    title: 'Event inspector · console',
    body: bodies.INSPECTOR_BODY,
    promptFields: bodies.INSPECTOR_PROMPT,
    promptButton: 'Watch',
    entry: 'inspector',
  },
  { path: '/console/keys', section: 'keys', title: 'Keys · console', body: bodies.KEYS_BODY, promptButton: 'Show keys', entry: 'keys', chart: true },
  { path: '/console/privacy', section: 'privacy', title: 'Privacy · console', body: bodies.PRIVACY_BODY, entry: 'privacy' },
  { path: '/console/audit', section: 'audit', title: 'Access log · console', body: bodies.AUDIT_BODY, entry: 'audit' },
];

const TYPES: Readonly<Record<string, string>> = { js: 'text/javascript', css: 'text/css' };

/**
 * The console (docs/console.md): Campaigns, Segments, SQL, Health, the inspector, Keys, Privacy and the access log on the one
 * base URL, in the one shell (shell.ts), their scripts and styles the console's build (packages/console).
 * Pages and files need no key; every call the pages make takes the app's API key from the prompt.
 */
export function consoleRoutes(router: Router, assets: ConsoleAssets): void {
  const built = (name: string): string | undefined => {
    const file = assets.build.entries[name];
    return file === undefined ? undefined : `${ASSETS}/${file}`;
  };
  for (const p of CONSOLE_PAGES) {
    const script = built(`${p.entry}.js`);
    if (script === undefined) throw new Error(`the console's build has no script for page ${p.entry} (packages/console/src/pages/${p.entry}/main.ts)`);
    const scripts = [...(p.chart ? [`${CHART_PATH}?v=${assets.chartHash}`] : []), script];
    const stylesheets = [built('console.css'), built(`${p.entry}.css`)].filter((s) => s !== undefined);
    router.get(p.path, serveFile('text/html', consolePage({ ...p, scripts, stylesheets })));
  }
  router.get('/console', (_req, res) => res.redirect(302, '/console/campaigns'));
  router.get(CHART_PATH, serveFile('text/javascript', assets.chartJs, IMMUTABLE));
  router.get(`${ASSETS}/sql-examples.json`, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).json(assets.sqlExamples);
  });
  const files = new Map(
    Object.entries(assets.build.files).map(([name, text]) => [name, serveFile(TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'text/plain', text, IMMUTABLE)]),
  );
  router.get(`${ASSETS}/:file`, (req, res) => {
    const serve = files.get(String(req.params.file));
    if (!serve) throw new ApiError('not_found', { message: `The console's build has no file ${String(req.params.file)}.` });
    serve(req, res);
  });
}
