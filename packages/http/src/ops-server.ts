import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { ApiError, errorMessage } from '@evp/core';

export interface OpsServerOptions {
  port: number;
  host?: string;
  metrics: Registry;
  /** Problems that make the service not ready (e.g. a dead consumer); empty when ready. */
  readiness: () => Promise<string[]>;
}

/**
 * The side port of a service without a public HTTP API (validator, segmenter): /metrics, /healthz
 * (the process answers) and /readyz (its dependencies and consumers work), in the same shapes as
 * createHttpApp's, so one probe configuration fits every service.
 */
export function serveOps(opts: OpsServerOptions): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const path = (req.url ?? '').split('?')[0];
    // Errors in the one JSON error shape every API answers with.
    const fail = (e: ApiError) => json(e.status, e.body(undefined));
    if (req.method !== 'GET') fail(new ApiError('not_found', { message: `No route ${req.method} ${path}.` }));
    else if (path === '/healthz') json(200, { status: 'ok' });
    else if (path === '/readyz') {
      // A readiness check that throws is itself a reason not to be ready.
      opts.readiness().then(
        (problems) => json(problems.length === 0 ? 200 : 503, { ready: problems.length === 0, problems }),
        (err: unknown) => json(503, { ready: false, problems: [`readiness check failed: ${errorMessage(err)}`] }),
      );
    } else if (path === '/metrics') {
      opts.metrics.metrics().then(
        (body) => res.writeHead(200, { 'Content-Type': opts.metrics.contentType }).end(body),
        () => fail(new ApiError('internal')),
      );
    } else fail(new ApiError('not_found', { message: `No route GET ${path}.` }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : opts.port });
    });
  });
}
