import { Counter, Registry } from 'prom-client';
import type { Bus } from '@evp/core';

/**
 * `dead_letters_total{source_topic, group}`: the dead letters a process's bus wrote durably (every
 * consumer's, and the sink's refused rows), read from the bus at scrape time; registered in
 * `registry` (a new one by default), which is returned. One per process: a
 * process has one bus, and `npm start`'s one bus serves every part, so the series never collide.
 */
export function deadLetterMetrics(bus: Pick<Bus, 'deadLetterCounts'>, registry = new Registry()): Registry {
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
  return registry;
}
