import { createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { USAGE, parseCommand, runCommand } from './command';
import { loadDeadLettersConfig } from './config';

/** `npm run deadletters -- list|replay …` against the broker in KAFKA_BROKERS (docs/reliability.md, "Replay"). */
async function main(): Promise<number> {
  const parsed = parseCommand(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(`${parsed.problem}\n\n${USAGE}`);
    return 2;
  }
  const config = loadDeadLettersConfig();
  // stdout is the command's output (JSON lines); logs go to stderr.
  const logger = createLogger('deadletters', config.LOG_LEVEL, { write: (line: string) => void process.stderr.write(line) });
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'deadletters-cli', logger });
  try {
    return await runCommand(bus, parsed.command, (line) => console.log(line));
  } finally {
    await bus.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
