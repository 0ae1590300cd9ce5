import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { InfraError } from '@evp/core';
import { producerSurvives, serialProducer } from './serial-producer';

/** As kafkajs builds them from a broker's error code (its type declarations omit the second argument). */
const protocolError = (type: string, retriable = false) => new KafkaJSProtocolError(Object.assign(new Error('broker said no'), { type, retriable, code: 0 }));
const wrapped = (inner: Error) => Object.assign(new KafkaJSNonRetriableError(inner), { cause: inner });

describe('producerSurvives', () => {
  it('keeps the producer only when the broker refused a whole request before appending anything', () => {
    expect(producerSurvives(protocolError('MESSAGE_TOO_LARGE'))).toBe(true);
    expect(producerSurvives(wrapped(protocolError('RECORD_LIST_TOO_LARGE')))).toBe(true);
    expect(producerSurvives(new InfraError('kafka', 'produce: too large', { retriable: false, cause: protocolError('INVALID_RECORD') }))).toBe(true);
  });

  it('replaces it after out-of-order sequence numbers, exhausted retries, timeouts and unknown failures', () => {
    expect(producerSurvives(protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER'))).toBe(false);
    expect(producerSurvives(protocolError('UNKNOWN_PRODUCER_ID'))).toBe(false);
    const notEnough = protocolError('NOT_ENOUGH_REPLICAS', true);
    expect(producerSurvives(wrapped(notEnough))).toBe(false);
    expect(producerSurvives(new InfraError('kafka', 'produce timed out after 5000 ms', { retriable: true }))).toBe(false);
    expect(producerSurvives(new Error('socket hang up'))).toBe(false);
  });
});

/** Fake producers numbered in the order they were opened; `log` records which one ran what. */
function fakes(retry?: { retries: number; initialMs: number; maxMs: number }) {
  const log: string[] = [];
  const closed: number[] = [];
  let n = 0;
  const serial = serialProducer<number>({
    open: () => Promise.resolve((n += 1)),
    close: (p) => {
      closed.push(p);
      return Promise.resolve();
    },
    timeoutMs: 200,
    ...(retry ? { retry } : {}),
  });
  return { serial, log, closed };
}

describe('serialProducer', () => {
  it('runs sends one at a time, in order, on one producer while they succeed', async () => {
    const { serial, log } = fakes();
    let active = 0;
    const send = (name: string) =>
      serial.run(async (p) => {
        active += 1;
        log.push(`${name}@${p} with ${active} active`);
        await new Promise((r) => setTimeout(r, 5));
        active -= 1;
      });
    await Promise.all([send('a'), send('b'), send('c')]);
    expect(log).toEqual(['a@1 with 1 active', 'b@1 with 1 active', 'c@1 with 1 active']);
    expect(serial.opened()).toBe(1);
  });

  it('after an out-of-order sequence number the failed send rejects and the next send runs on a new producer', async () => {
    const { serial, log, closed } = fakes();
    const failing = serial.run((p) => {
      log.push(`a@${p}`);
      return Promise.reject(protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER'));
    });
    const next = serial.run((p) => Promise.resolve(log.push(`b@${p}`)));
    await expect(failing).rejects.toMatchObject({ type: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    await next;
    expect(log).toEqual(['a@1', 'b@2']);
    expect(serial.opened()).toBe(2);
    await serial.close();
    expect(closed).toEqual([1, 2]);
  });

  it('a send abandoned at the timeout rejects, its producer is closed once it settles, and the next send gets a new one', async () => {
    const { serial, log, closed } = fakes();
    let finish!: () => void;
    const abandoned = serial.run((p) => {
      log.push(`slow@${p}`);
      return new Promise<void>((r) => (finish = r));
    });
    await expect(abandoned).rejects.toThrow('produce timed out after 200 ms');
    await serial.run((p) => Promise.resolve(log.push(`after@${p}`)));
    expect(log).toEqual(['slow@1', 'after@2']);
    expect(closed).toEqual([]);
    finish();
    await new Promise((r) => setImmediate(r));
    expect(closed).toEqual([1]);
  });

  it('keeps the producer after a request refused as too large', async () => {
    const { serial, log } = fakes();
    await expect(serial.run(() => Promise.reject(protocolError('MESSAGE_TOO_LARGE')))).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
    await serial.run((p) => Promise.resolve(log.push(`b@${p}`)));
    expect(log).toEqual(['b@1']);
    expect(serial.opened()).toBe(1);
  });

  it('a send still waiting for its turn at its deadline fails without running; one that cannot open a producer fails and the next opens again', async () => {
    let opens = 0;
    const serial = serialProducer<number>({
      open: () => ((opens += 1) === 1 ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve(opens)),
      close: () => Promise.resolve(),
      timeoutMs: 100,
    });
    await expect(serial.run(() => Promise.resolve('never'))).rejects.toThrow('connect ECONNREFUSED');
    const ran: string[] = [];
    // Far past the deadline: under load, a blocker ending soon after it could let the waiting send run.
    const blocker = serial.run(() => new Promise<void>((r) => setTimeout(r, 1_000)));
    const waiting = serial.run(() => Promise.resolve(ran.push('waiting')));
    await expect(blocker).rejects.toThrow('produce timed out after 100 ms');
    await expect(waiting).rejects.toThrow('waiting to produce timed out after 100 ms');
    expect(ran).toEqual([]);
    await expect(serial.run((p) => Promise.resolve(p))).resolves.toBe(3);
  });

  describe('with retry (what createKafkaBus uses instead of kafkajs retries)', () => {
    const retry = { retries: 3, initialMs: 10, maxMs: 20 };

    it('runs a failed send again, whole, on a new producer, and resolves once an attempt succeeded', async () => {
      const { serial, log, closed } = fakes(retry);
      const result = await serial.run((p) => {
        log.push(`send@${p}`);
        return p < 3 ? Promise.reject(protocolError('NOT_LEADER_OR_FOLLOWER', true)) : Promise.resolve(`ok@${p}`);
      });
      expect(result).toBe('ok@3');
      expect(log).toEqual(['send@1', 'send@2', 'send@3']);
      await new Promise((r) => setImmediate(r));
      expect(closed).toEqual([1, 2]);
      // The next send keeps the producer that worked.
      await serial.run((p) => Promise.resolve(log.push(`next@${p}`)));
      expect(log.at(-1)).toBe('next@3');
    });

    it('gives up after `retries` attempts more, rejecting with the last failure', async () => {
      const { serial, log } = fakes(retry);
      const failing = serial.run((p) => {
        log.push(`send@${p}`);
        return Promise.reject(new Error(`connection to broker closed (${p})`));
      });
      await expect(failing).rejects.toThrow('connection to broker closed (4)');
      expect(log).toEqual(['send@1', 'send@2', 'send@3', 'send@4']);
    });

    it('runs again only what `when` accepts', async () => {
      const log: string[] = [];
      let n = 0;
      const serial = serialProducer<number>({
        open: () => Promise.resolve((n += 1)),
        close: () => Promise.resolve(),
        timeoutMs: 200,
        retry: { ...retry, when: (err) => (err as Error).message.startsWith('unwritten') },
      });
      await expect(
        serial.run((p) => {
          log.push(`send@${p}`);
          return Promise.reject(new Error(p === 1 ? 'unwritten partitions' : 'connection closed'));
        }),
      ).rejects.toThrow('connection closed');
      // Run again after the first (accepted), not after the second: each on a new producer.
      expect(log).toEqual(['send@1', 'send@2']);
      expect(serial.opened()).toBe(2);
    });

    it('does not run again a request refused whole, nor past the deadline', async () => {
      const { serial, log } = fakes(retry);
      await expect(
        serial.run((p) => {
          log.push(`big@${p}`);
          return Promise.reject(protocolError('MESSAGE_TOO_LARGE'));
        }),
      ).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
      expect(log).toEqual(['big@1']);
      const slow = fakes({ retries: 5, initialMs: 150, maxMs: 150 });
      await expect(
        slow.serial.run((p) => {
          slow.log.push(`send@${p}`);
          return new Promise((_, reject) => setTimeout(() => reject(new Error('request timed out')), 60));
        }),
      ).rejects.toThrow('request timed out');
      // 60 ms + 150 ms of back-off would pass the 200 ms deadline: one attempt only.
      expect(slow.log).toEqual(['send@1']);
    });
  });
});
