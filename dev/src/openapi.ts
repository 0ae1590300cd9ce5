import { actionStoreOpenApi } from '@evp/action-store';
import { gatewayOpenApi } from '@evp/gateway';
import { assembleOpenApi, edgeOpenApi, type OpenApiDocument } from '@evp/http';
import { clickhouseHttpOpenApi } from '@evp/clickhouse-http';
import { segmenterOpenApi } from '@evp/segmenter';

/**
 * The one OpenAPI document of the base URL: every public route, whichever service answers it. Each
 * service describes its own routes beside its app (services never import each other); this package,
 * which composes every part anyway, is where they meet. `npm start`'s edge serves it at
 * GET /openapi.json; docs/openapi.json holds it for the docker-compose edge (nginx serves that file)
 * and for readers: `npx tsx dev/src/write-openapi.ts` rewrites it, and a test fails when it is stale.
 */
export function platformOpenApi(): OpenApiDocument {
  return assembleOpenApi(
    {
      title: 'Event platform',
      version: '1.0.0',
      description:
        'Every public route on the one base URL: ingest (gateway), request verdicts and the inspector (segmenter), actions (action store), and ClickHouse’s HTTP interface for analysts under /clickhouse/. Every ingest 200 is sent only after Kafka acknowledged the data. Ingest limits (defaults): 5 MiB decompressed body, 5,000 events or catalog records per request, per-key rate limit 600,000 requests per 60 s. Any route may also answer the HTTP-level errors of docs/errors.md (400 malformed_request, 408 request_timeout, 417 expectation_failed, 431 headers_too_large) and 404 not_found for a path no service has. See docs/api.md, docs/actions.md, docs/inspector.md.',
    },
    [edgeOpenApi(), gatewayOpenApi(), segmenterOpenApi(), actionStoreOpenApi(), clickhouseHttpOpenApi()],
  );
}
