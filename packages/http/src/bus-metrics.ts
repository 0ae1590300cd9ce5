import { Counter, Gauge, Registry } from 'prom-client';
import type { Bus } from '@evp/core';

/**
 * What a process's bus reports, read from it at scrape time and registered in `registry` (a new one
 * by default), which is returned:
 * - `dead_letters_total{source_topic, group}`: the dead letters its producers wrote durably (every
 *   consumer's, and the sink's refused rows);
 * - `consumer_lag_messages{group, topic, partition}` and `consumer_lag_seconds{…}`: every consumer
 *   group's lag per partition as of the last batch it handled (Bus.consumerLag).
 * One per process: a process has one bus, and `npm start`'s one bus serves every part, so the series
 * never collide.
 */
export function busMetrics(bus: Pick<Bus, 'deadLetterCounts' | 'consumerLag'>, registry = new Registry()): Registry {
  new Counter({
    name: 'dead_letters_total',
    help: 'Messages written to `deadletters` (what a consumer could not handle), by source topic and consumer group',
    labelNames: ['source_topic', 'group'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of bus.deadLetterCounts()) this.inc({ source_topic: c.sourceTopic, group: c.group }, c.count);
    },
  });
  const lagGauge = (unit: 'messages' | 'seconds', help: string) =>
    new Gauge({
      name: `consumer_lag_${unit}`,
      help,
      labelNames: ['group', 'topic', 'partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of bus.consumerLag()) this.set({ group: l.group, topic: l.topic, partition: String(l.partition) }, l[unit]);
      },
    });
  lagGauge(
    'messages',
    "Messages in the partition beyond the last one the group handled (the partition's high watermark at that batch's fetch), by group, topic and partition",
  );
  lagGauge(
    'seconds',
    'How far behind in time the group was at its last batch on the partition: 0 when caught up, else from the log time of the last message it handled to that batch being handled',
  );
  return registry;
}
