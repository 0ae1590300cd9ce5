import pino from 'pino';
import { describeBusConformance } from '@evp/testkit';
import { createKafkaBus } from './kafka-bus';

describeBusConformance(
  'kafka',
  async () => {
    const bus = createKafkaBus({
      brokers: (process.env.KAFKA_BROKERS as string).split(','),
      clientId: 'bus-conformance',
      logger: pino({ level: 'error' }),
    });
    return { bus, close: () => bus.close() };
  },
  { timeoutMs: 60_000 },
);
