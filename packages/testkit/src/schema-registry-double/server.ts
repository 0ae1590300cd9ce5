import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SchemaRegistryDoubleOptions, createSchemaRegistryDouble } from './app';

export interface RunningSchemaRegistryDouble {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the test double; port 0 (the default) picks a free one, which tests should prefer. */
export async function startSchemaRegistryDouble(
  opts: SchemaRegistryDoubleOptions & { host?: string; port?: number } = {},
): Promise<RunningSchemaRegistryDouble> {
  const host = opts.host ?? '127.0.0.1';
  const server: Server = createServer(createSchemaRegistryDouble(opts));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Clients keep connections alive; without this, close() waits for them to idle out.
        server.closeAllConnections();
      }),
  };
}
