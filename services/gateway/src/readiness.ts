import { errorMessage, topics, type Bus } from '@evp/core';

/**
 * Ready means: not draining, the broker answers, and every topic the gateway writes exists (with
 * auto-create off, a missing topic would turn every request into a 503). Returns the problems.
 */
export function gatewayReadiness(opts: {
  bus: Pick<Bus, 'listTopics'>;
  requiredTopics?: string[];
  isDraining?: () => boolean;
}): () => Promise<string[]> {
  const required = opts.requiredTopics ?? [topics.raw];
  return async () => {
    if (opts.isDraining?.()) return ['shutting down'];
    let existing: string[];
    try {
      existing = await opts.bus.listTopics();
    } catch (err) {
      return [`kafka unreachable: ${errorMessage(err)}`];
    }
    return required.filter((t) => !existing.includes(t)).map((t) => `topic ${t} is missing`);
  };
}
