import type { Request } from 'express';

/**
 * How a real client reads the answer to an upload decides what the gateway must answer for it to do
 * the right thing: keep and re-send a batch that was not stored, drop one that was
 * (docs/api.md "How the real clients read answers", docs/clients/*.md for the sources).
 * - The current iOS client (Kenkai 1.0.x; Unity 1.0.10's iOS side) reads no status at all: ANY HTTP
 *   answer deletes its batch, only a transport error keeps it.
 * - The older iOS clients (0.4.3–1.2.3) delete catalog and crash uploads on any answer too; for event
 *   uploads 0.4.3–0.9.7 do the same, and 0.9.8–1.2.3 count an EMPTY body as success and any body as
 *   failure (kept and re-sent forever).
 */
export interface AnswerStyle {
  /** Success is a 200 without a body (the request id and count travel in headers). */
  emptySuccess: boolean;
  /**
   * A failure the client should retry (Kafka unavailable, rate limited) closes the connection
   * without an answer, because an HTTP error would make the client delete the batch.
   */
  closeOnRetriable: boolean;
}

/** Paths only clients that read no status call (the Kenkai iOS client; the older iOS catalog and crash uploads). */
const STATUS_BLIND_PATHS = ['/v1/ingest/events', '/v1/ingest/dimensions', '/v1/ingest/sdk/crash'];
const STATUS_BLIND_PREFIXES = ['/v1/ingest/catalog/'];

/** Whether the request's path is one that only status-blind clients call (decidable before the body is read). */
export function statusBlindPath(req: Pick<Request, 'url'>): boolean {
  // From the URL, not req.path: hot routes (packages/http/src/hot-routes.ts) skip Express's request prototype.
  const q = req.url.indexOf('?');
  const path = q === -1 ? req.url : req.url.slice(0, q);
  return STATUS_BLIND_PATHS.includes(path) || STATUS_BLIND_PREFIXES.some((p) => path.startsWith(p));
}

/**
 * An event upload: the earlier envelope form is the older iOS clients' protocol, answered as the
 * original service did (an empty 200) and closed on a retriable failure; the Kenkai path likewise
 * closed. Everyone else gets the JSON answers of docs/api.md.
 */
export function logAnswerStyle(req: Pick<Request, 'url'>, allEarlierForm: boolean): AnswerStyle {
  return { emptySuccess: allEarlierForm, closeOnRetriable: allEarlierForm || statusBlindPath(req) };
}
