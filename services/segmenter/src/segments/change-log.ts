import { blockSubject, membershipChangeId, membershipChangeSchema, membershipHeaders } from '@evp/schemas';
import type { Bus, BusProducer, OutgoingMessage, SchemaRegistry } from '@evp/core';
import type { MembershipChange } from './model';

/**
 * The membership topic as the engine writes and reads it back: each change one Avro record
 * (Confluent wire format, subject `<topic>-value`), key `app_id:user_id`, headers naming the change.
 */
export interface ChangeLog {
  start(): Promise<void>;
  publish(changes: readonly MembershipChange[]): Promise<void>;
  /** The change ids among `wanted` found on the topic from `fromMs` (log time) to its end now. */
  present(fromMs: number, wanted: ReadonlySet<string>): Promise<Set<string>>;
  stop(): Promise<void>;
}

export function createChangeLog(deps: { bus: Bus; registry: SchemaRegistry; topic: string }): ChangeLog {
  let schemaId: number | undefined;
  let producer: BusProducer | undefined;

  async function message(c: MembershipChange): Promise<OutgoingMessage> {
    const value = await deps.registry.encode(schemaId as number, {
      app_id: c.app_id,
      segment_id: c.segment_id,
      user_id: c.user_id,
      change: c.change,
      at: c.at,
      version: c.version,
      seq: c.seq,
    });
    return {
      key: `${c.app_id}:${c.user_id}`,
      value,
      headers: { [membershipHeaders.changeId]: membershipChangeId(c), [membershipHeaders.appId]: c.app_id, [membershipHeaders.segmentId]: c.segment_id },
    };
  }

  return {
    async start() {
      schemaId ??= await deps.registry.register(blockSubject(deps.topic), membershipChangeSchema);
      producer ??= await deps.bus.producer();
    },
    async publish(changes) {
      if (changes.length === 0) return;
      if (!producer) throw new Error('change log not started');
      await producer.send(deps.topic, await Promise.all(changes.map(message)));
    },
    async present(fromMs, wanted) {
      const found = new Set<string>();
      await deps.bus.scan(deps.topic, fromMs, (m) => {
        const id = m.headers[membershipHeaders.changeId];
        if (id !== undefined && wanted.has(id)) found.add(id);
      });
      return found;
    },
    async stop() {
      const p = producer;
      producer = undefined;
      await p?.close();
    },
  };
}
