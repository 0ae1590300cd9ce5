import { errorMessage, topics, type Bus } from '@evp/core';

export interface GatewayReadinessOptions {
  bus: Pick<Bus, 'listTopics'>;
  requiredTopics?: string[];
  isDraining?: () => boolean;
  /** The longest /readyz waits for the broker before answering from the last result. Default 800 ms. */
  answerWithinMs?: number;
  /** How old a last result may be to stand in for a check that has not answered. Default 5 s. */
  maxStaleMs?: number;
  now?: () => number;
}

/**
 * Ready means: not draining, the broker answers, and every topic the gateway writes exists (with
 * auto-create off, a missing topic would turn every request into a 503). Returns the problems.
 *
 * Bounded: a frozen broker makes listTopics hang for its whole timeout, and a probe that does not
 * answer is worse than one that says no. One broker check runs at a time (probes share it); a probe
 * waits at most `answerWithinMs`, then answers with the last completed result while it is recent,
 * and with "did not answer" once it is not.
 */
export function gatewayReadiness(opts: GatewayReadinessOptions): () => Promise<string[]> {
  const required = opts.requiredTopics ?? [topics.raw];
  const answerWithinMs = opts.answerWithinMs ?? 800;
  const maxStaleMs = opts.maxStaleMs ?? 5_000;
  const now = opts.now ?? Date.now;
  let inFlight: Promise<string[]> | undefined;
  let last: { at: number; problems: string[] } | undefined;

  const checkBroker = async (): Promise<string[]> => {
    try {
      const existing = await opts.bus.listTopics();
      return required.filter((t) => !existing.includes(t)).map((t) => `topic ${t} is missing`);
    } catch (err) {
      return [`kafka unreachable: ${errorMessage(err)}`];
    }
  };
  const sharedCheck = () =>
    (inFlight ??= checkBroker().then((problems) => {
      last = { at: now(), problems };
      inFlight = undefined;
      return problems;
    }));

  return async () => {
    if (opts.isDraining?.()) return ['shutting down'];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), answerWithinMs);
    });
    const answer = await Promise.race([sharedCheck(), timedOut]).finally(() => clearTimeout(timer));
    if (answer !== undefined) return answer;
    if (last !== undefined && now() - last.at <= maxStaleMs) return last.problems;
    return [`kafka did not answer within ${answerWithinMs} ms`];
  };
}
