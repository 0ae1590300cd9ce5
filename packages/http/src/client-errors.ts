import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, type ErrorCode } from '@evp/core';

/** What Node's HTTP parser reports, as our codes (Node's own answer to these has no body at all). */
function codeOf(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_HEADERS_TIMEOUT') return 'request_timeout';
  return 'malformed_request';
}

function errorHead(error: ApiError, requestId: string): { body: string; headers: Record<string, string | number> } {
  const body = JSON.stringify(error.body(requestId));
  return { body, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': requestId } };
}

/**
 * Requests that never reach Express — a malformed request line, headers over Node's limit, a timeout
 * while reading headers, an `Expect` other than 100-continue — get the one JSON error shape too,
 * instead of Node's bare status line. Nothing is logged: these are client faults, and any peer can
 * send them without a key.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset peer cannot read an answer; a response already under way cannot take another head.
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const error = new ApiError(codeOf(err));
    const { body, headers } = errorHead(error, randomUUID());
    const lines = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines}Connection: close\r\n\r\n${body}`);
  });
  // Without a listener Node answers 417 with an empty body; 100-continue itself is handled by Node.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const { body, headers } = errorHead(new ApiError('expectation_failed'), randomUUID());
    res.writeHead(417, { ...headers, Connection: 'close' }).end(body);
  });
}
