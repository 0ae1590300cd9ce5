import pino from 'pino';
import { createKafkaBus } from '../kafka-bus';

// A consumer in its own process, for the failover test to kill -9: argv brokers, topic, group.
// Prints one line per handled message ("<partition> <offset>").
const [brokers, topic, groupId] = process.argv.slice(2) as [string, string, string];
const bus = createKafkaBus({ brokers: brokers.split(','), clientId: 'failover-child', logger: pino({ level: 'error' }) });
// A subscription that fails must end the child with a reason, not leave it up consuming nothing.
bus
  .subscribe({
    groupId,
    topics: [topic],
    handleBatch: async (batch) => {
      for (const m of batch.messages) process.stdout.write(`${m.partition} ${m.offset}\n`);
    },
  })
  .catch((err: unknown) => {
    console.error(`consume-child: subscribe failed: ${(err as Error).message}`);
    process.exit(1);
  });
