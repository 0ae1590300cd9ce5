import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseSqlExamples, type SqlExample } from './sql-examples';

/** The console's files that come from outside its code: the charting library and the docs' example queries. */
export interface ConsoleAssets {
  /** Chart.js's browser build (chart.umd.min.js), served from this origin: no CDN. */
  chartJs: string;
  /** The first 16 hex digits of its SHA-256: its URL names it, so it is cached for a year. */
  chartHash: string;
  sqlExamples: SqlExample[];
}

/**
 * Reads the console's assets: from `dir` when given (the image has no repository around it, so the
 * Dockerfile puts chart.umd.min.js and analytics.md there: CONSOLE_ASSETS_DIR), else from the
 * installed chart.js package and the repository's docs/analytics.md.
 */
export function loadConsoleAssets(dir?: string): ConsoleAssets {
  const chartPath = dir ? join(dir, 'chart.umd.min.js') : join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
  const docPath = dir ? join(dir, 'analytics.md') : resolve(__dirname, '../../../../../docs/analytics.md');
  const chartJs = readFileSync(chartPath, 'utf8');
  return {
    chartJs,
    chartHash: createHash('sha256').update(chartJs).digest('hex').slice(0, 16),
    sqlExamples: parseSqlExamples(readFileSync(docPath, 'utf8')),
  };
}
