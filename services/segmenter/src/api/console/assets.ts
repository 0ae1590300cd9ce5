import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseSqlExamples, type SqlExample } from './sql-examples';

/**
 * The console's browser code as built by packages/console (bundleConsole): content-hashed file names
 * and each page's script among them. Served as given; the segmenter never builds it.
 */
export interface ConsoleBuild {
  /** File name (`health-5LTK75B5.js`) → its text. */
  files: Readonly<Record<string, string>>;
  /** Page (`health`: packages/console/src/pages/health/main.ts) → its script's name in `files`. */
  entries: Readonly<Record<string, string>>;
}

/** The console's files: its build, the charting library and the docs' example queries. */
export interface ConsoleAssets {
  build: ConsoleBuild;
  /** Chart.js's browser build (chart.umd.min.js), served from this origin: no CDN. */
  chartJs: string;
  /** The first 16 hex digits of its SHA-256: its URL names it, so it is cached for a year. */
  chartHash: string;
  sqlExamples: SqlExample[];
}

/** The manifest the console's image build writes beside its files (packages/console/src/build/main.ts). */
const CONSOLE_MANIFEST = 'manifest.json';

function readBuild(dir: string): ConsoleBuild {
  const { entries } = JSON.parse(readFileSync(join(dir, CONSOLE_MANIFEST), 'utf8')) as { entries: Record<string, string> };
  return { entries, files: Object.fromEntries(Object.values(entries).map((f) => [f, readFileSync(join(dir, f), 'utf8')])) };
}

/**
 * Reads the console's assets: from `dir` when given (the image has no repository around it, so the
 * Dockerfile puts the console's build, chart.umd.min.js and analytics.md there: CONSOLE_ASSETS_DIR),
 * else `build` as given (`npm start` builds it in process) with the installed chart.js package and
 * the repository's docs/analytics.md.
 */
export function loadConsoleAssets(from: { dir: string } | { build: ConsoleBuild }): ConsoleAssets {
  const dir = 'dir' in from ? from.dir : undefined;
  const chartPath = dir ? join(dir, 'chart.umd.min.js') : join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
  const docPath = dir ? join(dir, 'analytics.md') : resolve(__dirname, '../../../../../docs/analytics.md');
  const chartJs = readFileSync(chartPath, 'utf8');
  return {
    build: 'build' in from ? from.build : readBuild(from.dir),
    chartJs,
    chartHash: createHash('sha256').update(chartJs).digest('hex').slice(0, 16),
    sqlExamples: parseSqlExamples(readFileSync(docPath, 'utf8')),
  };
}
