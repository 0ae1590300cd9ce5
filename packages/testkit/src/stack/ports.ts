import { createConnection, createServer } from 'node:net';

/** A port nobody listens on right now (the OS picks it; a race with another process is possible but rare). */
export const freePort = () =>
  new Promise<number>((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => ok(port));
    });
  });

export const portOpen = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = createConnection({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => ok(false));
  });
