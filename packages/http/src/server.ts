import { createServer, type RequestListener, type Server } from 'node:http';
import { answerClientErrorsAsJson } from './client-errors';

/** Listens and resolves with the bound port (port 0 picks a free one); client errors answer JSON (client-errors.ts). */
export function listen(app: RequestListener, port: number, host = '0.0.0.0'): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer(app).listen(port, host, () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
    server.once('error', reject);
    answerClientErrorsAsJson(server);
  });
}

/**
 * Stops accepting connections and waits for in-flight requests to finish. Keep-alive connections
 * that go idle once their last response is written are closed as they do (polled), so one client
 * holding a connection open cannot stall shutdown; past `graceMs` every connection is cut.
 */
export function closeServer(server: Server, opts: { graceMs?: number } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const graceMs = opts.graceMs ?? 30_000;
    const started = Date.now();
    const poll = setInterval(() => {
      if (Date.now() - started >= graceMs) server.closeAllConnections();
      else server.closeIdleConnections();
    }, 50);
    server.close((err) => {
      clearInterval(poll);
      return err ? reject(err) : resolve();
    });
    server.closeIdleConnections();
  });
}
