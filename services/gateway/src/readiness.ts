import { errorMessage, topics, type Bus } from '@evp/core';

export interface GatewayReadinessOptions {
  bus: Pick<Bus, 'listTopics'>;
  requiredTopics?: string[];
  isDraining?: () => boolean;
  /** The longest /readyz waits for the broker; past it the answer is "not ready". Default 800 ms. */
  answerWithinMs?: number;
}

/**
 * Ready means: not draining, the broker answers, and every topic the gateway writes exists (with
 * auto-create off, a missing topic would turn every request into a 503). Returns the problems.
 *
 * Bounded: a frozen broker makes listTopics hang for its whole timeout, and a probe that does not
 * answer is worse than one that says no. One broker check runs at a time (concurrent probes share
 * it rather than pile requests on a struggling broker); a probe waits at most `answerWithinMs`, then
 * answers "did not answer": a slow broker is not a ready one, and reusing an older "ready" would hide
 * an outage.
 */
export function gatewayReadiness(opts: GatewayReadinessOptions): () => Promise<string[]> {
  const required = opts.requiredTopics ?? [topics.raw];
  const answerWithinMs = opts.answerWithinMs ?? 800;
  let inFlight: Promise<string[]> | undefined;

  const checkBroker = async (): Promise<string[]> => {
    try {
      const existing = await opts.bus.listTopics();
      return required.filter((t) => !existing.includes(t)).map((t) => `topic ${t} is missing`);
    } catch (err) {
      return [`kafka unreachable: ${errorMessage(err)}`];
    }
  };
  const sharedCheck = () =>
    (inFlight ??= checkBroker().finally(() => {
      inFlight = undefined;
    }));

  return async () => {
    if (opts.isDraining?.()) return ['shutting down'];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), answerWithinMs);
    });
    const answer = await Promise.race([sharedCheck(), timedOut]).finally(() => clearTimeout(timer));
    return answer ?? [`kafka did not answer within ${answerWithinMs} ms`];
  };
}
