// Runs the Confluent Schema Registry TEST DOUBLE for the local stack:
//   PORT=8081 node node_modules/.bin/tsx packages/testkit/src/schema-registry-double/main.ts
import { startSchemaRegistryDouble } from './server';

const port = Number(process.env.PORT ?? 8081);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`schema-registry-double: PORT must be an integer 0..65535, got "${process.env.PORT}"`);
  process.exit(1);
}

startSchemaRegistryDouble({ host: '127.0.0.1', port }).then(
  (running) => {
    console.log(`schema-registry-double (in-memory test double of Confluent Schema Registry) listening on ${running.url}`);
    // A signal handler cannot wait: both outcomes of close() are handled and end the process.
    const stop = () =>
      void running.close().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`schema-registry-double: close failed: ${(err as Error).message}`);
          process.exit(1);
        },
      );
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  },
  (err: unknown) => {
    console.error(`schema-registry-double: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
    process.exit(1);
  },
);
