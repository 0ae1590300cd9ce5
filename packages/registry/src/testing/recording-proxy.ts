import { type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a real registry, for what a registry cannot show a test by itself:
 * which requests a client made, and a registry failing on cue.
 */
export interface RecordingProxy {
  /** The registry's base URL, through the proxy (same base path). */
  url: string;
  /** `METHOD /path` of every request, the path relative to the base URL, without the query. */
  requests: string[];
  /** The next `count` requests whose line matches answer 503, as a registry without a leader does. */
  failNext(count: number, match: RegExp): void;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const base = new URL(target);
  const basePath = base.pathname.replace(/\/$/, '');
  const requests: string[] = [];
  const failing = { count: 0, match: /$^/ };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const line = `${req.method} ${path.startsWith(basePath) ? path.slice(basePath.length) : path}`;
    requests.push(line);
    if (failing.count > 0 && failing.match.test(line)) {
      failing.count -= 1;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error_code: 50003, message: 'Error while forwarding the request to the leader' }));
      return;
    }
    const upstream = request(new URL(req.url ?? '/', base.origin), { method: req.method, headers: { ...req.headers, host: base.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`,
    requests,
    failNext(count, match) {
      Object.assign(failing, { count, match });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
