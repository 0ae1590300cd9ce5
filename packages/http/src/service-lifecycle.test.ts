import { ConfigError, createLogger } from '@evp/core';
import { runService, serviceLifecycle } from './service-lifecycle';

const logger = createLogger('test', 'silent');

describe('serviceLifecycle', () => {
  it('runs every step in order, logs a failing one and goes on, then exits with the code; once', async () => {
    const done: string[] = [];
    const exits: number[] = [];
    const errors: string[] = [];
    const log = { ...logger, info: () => {}, error: (_o: unknown, msg: string) => void errors.push(msg) } as unknown as typeof logger;
    const l = serviceLifecycle({
      logger: log,
      signals: false,
      exit: (c) => void exits.push(c),
      steps: () => [
        { what: 'http', run: () => void done.push('http') },
        {
          what: 'consumer',
          run: async () => {
            done.push('consumer');
            throw new Error('stuck');
          },
        },
        { what: 'producer', run: async () => void done.push('producer') },
      ],
    });
    await Promise.all([l.shutdown('SIGTERM', 0), l.shutdown('SIGINT', 0)]);
    expect(done).toEqual(['http', 'consumer', 'producer']);
    expect(errors).toEqual(['shutdown: consumer failed: stuck']);
    expect(exits).toEqual([0]);
  });

  it('reads the steps when the shutdown starts', async () => {
    const parts: { later?: string } = {};
    const done: (string | undefined)[] = [];
    const l = serviceLifecycle({ logger, signals: false, exit: () => {}, steps: () => [{ what: 'part', run: () => void done.push(parts.later) }] });
    parts.later = 'assigned later';
    await l.shutdown('test');
    expect(done).toEqual(['assigned later']);
  });

  it('a dead consumer shuts the service down with exit code 1', async () => {
    const exits: number[] = [];
    const l = serviceLifecycle({ logger, signals: false, exit: (c) => void exits.push(c), steps: () => [] });
    l.exitOnDead('sink')(new Error('gone'));
    await new Promise((r) => setImmediate(r));
    expect(exits).toEqual([1]);
  });
});

describe('runService', () => {
  it('prints a configuration error as its problems and exits 1', async () => {
    const printed: unknown[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((m: unknown) => void printed.push(m));
    const exits: number[] = [];
    await runService(
      async () => {
        throw new ConfigError(['KAFKA_BROKERS: Required']);
      },
      (c) => void exits.push(c),
    );
    spy.mockRestore();
    expect([printed, exits]).toEqual([[new ConfigError(['KAFKA_BROKERS: Required']).message], [1]]);
  });

  it('does not exit when the composition root started', async () => {
    const exits: number[] = [];
    await runService(
      async () => {},
      (c) => void exits.push(c),
    );
    expect(exits).toEqual([]);
  });
});
