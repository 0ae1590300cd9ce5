import { MAX_ACTIONS_PER_CREATE } from '@evp/actions';
import { waitFor } from '@evp/testkit';
import { KEYS, type Harness } from './harness';
import { sendUpload } from './load';
import { SETTLE_MS, call, hashSeed, utc } from './scenario-kit';

/** Responses a second beside the upload load, and the most one run sends (one action each). */
const FEEDBACK_RATE = 2;
const FEEDBACK_ACTIONS = 400;

/** What became of the responses: how many the gateway acknowledged, and how the store counted them. */
export interface FeedbackResult {
  sent: number;
  acked: number;
  /** Acknowledged responses the store counted once. */
  counted: number;
  /** Acknowledged responses the store never counted. */
  lost: number;
  /** Responses counted more than once (a redelivery counted again). */
  twice: number;
  /** Responses the gateway did not acknowledge (503 while the broker was away) that the store counted all the same. */
  unackedCounted: number;
  unacked: number;
  /** All sent before the load stopped: a run that ran out of actions sent fewer than it could. */
  ranOut: boolean;
}

/**
 * Nudge responses while a fault hits Kafka (scenarios a and k): `FEEDBACK_ACTIONS` one-off actions, one per
 * user and one action id each, under an invocation id of the run's own, created in the action store;
 * then, beside the upload load, one `open` response a user is sent as an upload, `FEEDBACK_RATE` a
 * second. The validator copies each to `actions.feedback` in the same send as its `events.core`
 * original, and the store's feedback consumer, which reads that topic alone, counts it once per
 * (action, user, response) (docs/actions.md, "Feedback"). `settle` then reads each action's stats:
 * every acknowledged response counted exactly once, none twice.
 */
export async function feedbackLoad(h: Harness, tag: string) {
  // Action ids repeat across scenarios and runs (e and i use 1…n too): the invocation is the run's.
  const inv = hashSeed(`${tag}-feedback`);
  const users = Array.from({ length: FEEDBACK_ACTIONS }, (_, i) => ({ user: `${tag}-fb${i}`, actionId: i + 1 }));
  for (let at = 0; at < users.length; at += MAX_ACTIONS_PER_CREATE) {
    const actions = users.slice(at, at + MAX_ACTIONS_PER_CREATE).map(({ user, actionId }) => ({
      user_id: user,
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      content: { title: `t${actionId}`, body: 'b' },
      expired_at: '2999-01-01T00:00:00Z',
      inv_id: inv,
      action_id: actionId,
    }));
    const r = await call(h.actionsUrl, KEYS.api, 'POST', '/v1/actions', { actions });
    if (r.status !== 200 || r.body.counts?.created !== actions.length)
      throw new Error(`creating the feedback actions: ${r.status} ${JSON.stringify(r.body.counts)}`);
  }
  const acked = new Set<number>();
  const unacked = new Set<number>();
  let next = 0;

  const respond = async () => {
    if (next >= users.length) return;
    const i = next++;
    const { user, actionId } = users[i] as (typeof users)[number];
    const now = Date.now();
    const body = JSON.stringify({
      id: user,
      tz: '+00:00',
      internal: { s_id: `${user}_${now}_0`, a_id: 'faults', sdk: 'android/2.4.1', a_ver: '1.2.3 (45)', d_id: `dev-${user}`, os: 'android' },
      data: [
        {
          time: utc(now),
          __ol: true,
          name: 'nudge_response',
          property: 'open',
          ctx: { ref: `${inv}:${actionId}`, time: new Date(now - 1_000).toISOString().replace(/\.\d+Z$/, 'Z'), response: 'open' },
        },
      ],
    });
    const r = await sendUpload(h.gatewayUrl, KEYS.sdk, body);
    (r.status === 200 && r.requestId ? acked : unacked).add(i);
  };

  /** The store's `open` count for user `i`'s action in this run's invocation (undefined: no answer). */
  const opened = async (i: number): Promise<number | undefined> => {
    const r = await call(h.actionsUrl, KEYS.api, 'GET', `/v1/actions/${(users[i] as (typeof users)[number]).actionId}/stats`);
    return r.status === 200 ? Number(r.body.by_inv_id?.[String(inv)]?.responses?.open ?? 0) : undefined;
  };

  return {
    /**
     * Starts sending, one response every 1/FEEDBACK_RATE s whether or not the last was answered, as
     * from many devices (a broker away holds answers for seconds: one at a time, the responses would
     * stop while it is away); the function it returns stops and waits for those in flight.
     */
    start: () => {
      const inFlight = new Set<Promise<void>>();
      const timer = setInterval(() => {
        const p: Promise<void> = respond().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }, 1_000 / FEEDBACK_RATE);
      return async () => {
        clearInterval(timer);
        await Promise.all([...inFlight]);
      };
    },
    /** Polls each acknowledged response's count until all are counted or SETTLE_MS passed, then reads every sent one. */
    async settle(): Promise<FeedbackResult> {
      const pending = new Set(acked);
      await waitFor(
        async () => {
          for (const i of [...pending]) if ((await opened(i)) === 1) pending.delete(i);
          return pending.size === 0;
        },
        { timeoutMs: SETTLE_MS, intervalMs: 1_000, what: 'every acknowledged response counted' },
      ).catch(() => undefined);
      const counts = new Map<number, number | undefined>();
      for (let i = 0; i < next; i++) counts.set(i, await opened(i));
      const ackedCounts = [...acked].map((i) => counts.get(i));
      return {
        sent: next,
        acked: acked.size,
        counted: ackedCounts.filter((n) => n === 1).length,
        lost: ackedCounts.filter((n) => n === 0).length,
        twice: [...counts.values()].filter((n) => n !== undefined && n > 1).length,
        unackedCounted: [...unacked].filter((i) => counts.get(i) === 1).length,
        unacked: unacked.size,
        ranOut: next >= users.length,
      };
    },
  };
}

/** The result in words, and what fails the scenario. */
export function feedbackVerdict(r: FeedbackResult): { note: string; failures: string[] } {
  const note =
    `feedback: ${r.sent} nudge responses sent, ${r.acked} acknowledged, ${r.counted} counted once, ${r.lost} lost, ${r.twice} counted twice; ` +
    `${r.unackedCounted} of ${r.unacked} unacknowledged counted${r.ranOut ? ` (all ${FEEDBACK_ACTIONS} sent before the load stopped)` : ''}`;
  const failures: string[] = [];
  if (r.acked === 0) failures.push('no nudge response was acknowledged');
  if (r.counted !== r.acked) failures.push(`${r.acked - r.counted} acknowledged nudge responses not counted once by the action store (${r.lost} never)`);
  if (r.twice !== 0) failures.push(`${r.twice} nudge responses counted twice`);
  return { note, failures };
}
