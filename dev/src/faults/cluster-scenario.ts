import { BLOCKS, topics } from '@evp/core';
import type { KafkaClusterProbe, PartitionState } from '@evp/kafka';
import { waitFor } from '@evp/testkit';
import { answerFailures, sortAnswers, type ClusterMarks, type Window } from './answer-windows';
import { awaitAllStored } from './counts';
import { feedbackLoad, feedbackVerdict } from './feedback-load';
import { CLUSTER_NODES, KEYS, type Harness } from './harness';
import { startLoad } from './load';
import { RATE, SETTLE_MS, hashSeed, pause, timeToRecover, traceIfLost, verdict, type Scenario } from './scenario-kit';

/** The partitions whose leaders the scenario kills: where the gateway writes and the validator's output goes. */
const WATCHED = [topics.raw, ...BLOCKS.map((b) => topics.events(b))];
/** Whose replication the scenario checks: those, and the action store's feedback (the validator writes it in the same send). */
const REPLICATED = [...WATCHED, topics.actionsFeedback];
const REPLICATION = { factor: 3, minInsync: '2' };

/** The node leading most watched partitions among `alive` (the lowest id on a tie). */
function busiestLeader(parts: PartitionState[], alive: number[]): number {
  const led = new Map(alive.map((n) => [n, 0]));
  for (const p of parts) if (led.has(p.leader)) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
  return [...led.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]?.[0] ?? (alive[0] as number);
}

const leaderCounts = (parts: PartitionState[]) =>
  Object.entries(
    parts.reduce<Record<number, number>>((m, p) => {
      m[p.leader] = (m[p.leader] ?? 0) + 1;
      return m;
    }, {}),
  )
    .map(([n, c]) => `node ${n} leads ${c}`)
    .join(', ');

/** Until every watched partition has a live leader and no dead node among its in-sync replicas (the controller fenced it). */
async function awaitFailover(probe: KafkaClusterProbe, dead: number) {
  await waitFor(
    async () => {
      const parts = await probe.partitions(WATCHED);
      return parts.every((p) => p.leader >= 0 && p.leader !== dead && !p.isr.includes(dead) && p.isr.length >= 2);
    },
    { timeoutMs: 60_000, intervalMs: 100, what: `the partitions node ${dead} led to move` },
  );
}

/**
 * k: three KRaft nodes (broker + controller each; replication factor 3, min.insync.replicas 2), the
 * services on all three; under steady load, kill -9 the node leading most ingest.raw/events.*
 * partitions, then (once they moved) the node leading most of the rest, then start both again.
 */
export const clusterScenario: Scenario = {
  id: 'k',
  title: 'three-node Kafka (replication 3, min.insync.replicas 2): kill -9 the busiest leader, then a second node, restart both',
  // --short: 10 s phases instead of 15 (about 3 minutes after the cluster is up).
  short: true,
  kafka: 'cluster',
  async run(h: Harness, { short, tag }) {
    const phaseMs = short ? 10_000 : 15_000;
    const probe = h.kafkaProbe();
    const failures: string[] = [];
    const notes: string[] = [];
    try {
      const before = await probe.partitions(REPLICATED);
      const unreplicated = before.filter((p) => p.replicas.length !== REPLICATION.factor).length;
      if (unreplicated > 0) failures.push(`${unreplicated} partitions without ${REPLICATION.factor} replicas`);
      // What acks=all promises rests on these (issue 35): a write is acknowledged by two replicas, and
      // a replica out of the in-sync set never becomes leader (it could lack acknowledged writes).
      for (const topic of REPLICATED) {
        const minInsync = await probe.topicConfig(topic, 'min.insync.replicas');
        const unclean = await probe.topicConfig(topic, 'unclean.leader.election.enable');
        if (minInsync !== REPLICATION.minInsync || unclean !== 'false')
          failures.push(`${topic}: min.insync.replicas ${minInsync}, unclean.leader.election.enable ${unclean}`);
      }

      const feedback = await feedbackLoad(h, tag);
      const loadStart = Date.now();
      const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.sdk, tag, seed: hashSeed(tag), rate: RATE });
      const stopFeedback = feedback.start();
      await pause(phaseMs);
      const nodes = Array.from({ length: CLUSTER_NODES }, (_, i) => i + 1);
      const leading = await probe.partitions(WATCHED);
      const first = busiestLeader(leading, nodes);
      notes.push(`before: ${leaderCounts(leading)}; killed ${first}`);
      await h.killBroker(first);
      const firstKilled = Date.now();
      await awaitFailover(probe, first);
      const failedOver = Date.now();
      await pause(phaseMs);
      const rest = await probe.partitions(WATCHED);
      const second = busiestLeader(
        rest,
        nodes.filter((n) => n !== first),
      );
      notes.push(`then: ${leaderCounts(rest)}; killed ${second}`);
      await h.killBroker(second);
      const secondKilled = Date.now();
      await pause(phaseMs);
      const restarted = Date.now();
      const recovery = timeToRecover(h, tag, restarted);
      // A cluster that does not come back is a finding: the counts below show what it cost.
      await h.restartBroker().catch((err: Error) => failures.push(`restart: ${err.message.split('\n').slice(-2).join(' ')}`));
      const upAgain = Date.now();
      await pause(phaseMs);
      const [tally] = await Promise.all([load.stop(), stopFeedback()]);
      const { counts } = await awaitAllStored((sql, p) => h.query(sql, p), tally, [tag], { timeoutMs: SETTLE_MS, since: restarted });
      const recoveredMs = await recovery;
      const responses = feedbackVerdict(await feedback.settle());
      failures.push(...responses.failures);

      const marks: ClusterMarks = { firstKilled, failedOver, secondKilled, restarted };
      const { back, windows } = sortAnswers(tally.answers, marks);
      failures.push(...answerFailures(windows));
      const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
      const w = (k: Window) => `${windows[k].ok} acked/${windows[k].unavailable}× 503${windows[k].other ? `/${windows[k].other} other` : ''}`;
      notes.push(
        `failover after the first kill ${s(failedOver - firstKilled)}; one node down: ${w('oneDown')}; two down: ${w('twoDown')}; ` +
          `transitions: ${w('transition')}; first ack ${s(back === undefined ? undefined : back - restarted)} after the restart ` +
          `(stack.sh up returned after ${s(upAgain - restarted)}); back: ${w('back')}`,
      );
      const trace = await traceIfLost(h, tally, counts.lost, loadStart);
      return verdict('k', this.title, counts, recoveredMs, failures, [...notes, responses.note, ...trace.notes], trace.hops);
    } finally {
      await probe.close();
    }
  },
};
