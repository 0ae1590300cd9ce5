import {
  closedObject,
  errorResponse,
  internalError,
  jsonResponse,
  keyed,
  nullable,
  pathParam,
  queryParam,
  unavailable,
  type OpenApiOperation,
  type OpenApiPaths,
} from '@evp/http';
import { HOURS_DEFAULT, HOURS_MAX, MINUTES_DEFAULT, MINUTES_MAX } from './health';

/** The console's part of the segmenter's OpenAPI fragment: its pages and files (console/index.ts) and the series its charts draw (health.ts, campaigns.ts, segments.ts). */

const time = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const clickhouseDown = unavailable('ClickHouse');

/** A page or file of the console: no key (its scripts ask for the API key), served with the same-origin content policy. */
const file = (operationId: string, summary: string, type: string, cache = 'no-cache', parameters: object[] = []): { get: OpenApiOperation } => ({
  get: {
    operationId,
    summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    security: [],
    responses: {
      '200': {
        description: `${summary}, served with \`Content-Security-Policy: default-src 'self'\` and \`Cache-Control: ${cache}\`.`,
        content: { [type]: { schema: { type: 'string' } } },
      },
    },
  },
});

export const hoursParam = queryParam(
  'hours',
  { type: 'integer', minimum: 1, maximum: HOURS_MAX },
  `Hours back from now, this hour included. Default ${HOURS_DEFAULT}.`,
);

/** `{data: [{hour, …fields}]}`: an hourly series. */
export const hourly = (fields: Record<string, object>) =>
  closedObject(['data'], {
    data: { type: 'array', items: closedObject(['hour', ...Object.keys(fields)], { hour: { ...time, description: 'The hour’s start.' }, ...fields }) },
  });

/** A series route of the API key: its 200 and the errors every such route gives. */
function seriesOp(operationId: string, summary: string, description: string, parameters: OpenApiOperation['parameters'], body: object): OpenApiOperation {
  const key = keyed('api');
  return {
    operationId,
    summary,
    description: `${description} Read from ClickHouse for the key’s app only; buckets with nothing are left out. Drawn by the console (docs/console.md).`,
    security: key.security,
    ...(parameters ? { parameters } : {}),
    responses: {
      '200': jsonResponse(summary, body),
      '400': errorResponse('The span is not an integer in range; `path` names the parameter.', ['invalid_request']),
      ...key.responses,
      '500': internalError,
      '503': clickhouseDown,
    },
  };
}

export function consolePaths(): OpenApiPaths {
  return {
    '/console': {
      get: {
        operationId: 'getConsole',
        summary: 'The console: redirects to its Campaigns page',
        security: [],
        responses: { '302': { description: 'To /console/campaigns.' } },
      },
    },
    '/console/campaigns': file('getConsoleCampaignsPage', 'The console’s Campaigns page', 'text/html'),
    '/console/campaigns/{campaign_id}': file('getConsoleCampaignPage', 'The console’s page of one campaign', 'text/html', undefined, [
      pathParam('campaign_id', { type: 'string' }, 'The campaign the page shows (its script reads it from the URL).'),
    ]),
    '/console/segments': file('getConsoleSegmentsPage', 'The console’s Segments page', 'text/html'),
    '/console/segments/{segment_id}': file('getConsoleSegmentPage', 'The console’s page of one segment', 'text/html', undefined, [
      pathParam('segment_id', { type: 'string' }, 'The segment the page shows (its script reads it from the URL).'),
    ]),
    '/console/sql': file('getConsoleSqlPage', 'The console’s SQL page', 'text/html'),
    '/console/health': file('getConsoleHealthPage', 'The console’s Health page', 'text/html'),
    '/console/privacy': file('getConsolePrivacyPage', 'The console’s Privacy page', 'text/html'),
    '/console/audit': file('getConsoleAuditPage', 'The console’s Access log page', 'text/html'),
    '/console/assets/{file}': {
      get: {
        operationId: 'getConsoleAsset',
        summary: 'A file of the console’s build (packages/console): a page’s script or a stylesheet, named by its content hash',
        security: [],
        parameters: [pathParam('file', { type: 'string' }, 'As the page names it, e.g. `health-PS5JOORJ.js`.')],
        responses: {
          '200': {
            description:
              "The file (text/javascript or text/css), served with `Content-Security-Policy: default-src 'self'` and `Cache-Control: public, max-age=31536000, immutable`.",
            content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
          },
          '404': errorResponse('No such file in this build.', ['not_found']),
        },
      },
    },
    '/console/assets/chart.umd.min.js': file(
      'getConsoleChartLibrary',
      'Chart.js’s browser build (pages ask for it with `?v=` its hash)',
      'text/javascript',
      'public, max-age=31536000, immutable',
    ),
    '/console/assets/sql-examples.json': {
      get: {
        operationId: 'getConsoleSqlExamples',
        summary: 'The example queries of docs/analytics.md, read when the segmenter starts',
        security: [],
        responses: {
          '200': jsonResponse('Each named example with the paragraph that introduces it.', {
            type: 'array',
            items: closedObject(['name', 'description', 'sql'], { name: { type: 'string' }, description: { type: 'string' }, sql: { type: 'string' } }),
          }),
        },
      },
    },
    '/v1/inspect/health': {
      get: seriesOp(
        'getIntakeHealth',
        'The app’s intake per minute and its dead letters',
        'Events stored (distinct ids) and records rejected per minute of receipt, the 95th percentile of receipt → stored of the minute’s events, and the dead letters of the span by consumer group.',
        [
          queryParam(
            'minutes',
            { type: 'integer', minimum: 1, maximum: MINUTES_MAX },
            `Minutes back from now, this minute included. Default ${MINUTES_DEFAULT}.`,
          ),
        ],
        closedObject(['minutes', 'dead_letters'], {
          minutes: {
            type: 'array',
            items: closedObject(['minute', 'events', 'rejected', 'freshness_p95_seconds'], {
              minute: { ...time, description: 'The minute’s start.' },
              events: count,
              rejected: count,
              freshness_p95_seconds: nullable('number', { minimum: 0, description: 'null in a minute without events.' }),
            }),
          },
          dead_letters: { type: 'array', items: closedObject(['group', 'count'], { group: { type: 'string' }, count: count }) },
        }),
      ),
    },
  };
}
