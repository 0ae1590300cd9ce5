import type { Server } from 'node:http';
import type { Express } from 'express';

/** Listens and resolves with the bound port (port 0 picks a free one). */
export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => {
      if (err) return reject(err);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
    server.once('error', reject);
  });
}

/** Stops accepting connections and waits for in-flight requests to finish. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}
