import { suppressionKey, topics, type BusProducer, type OutgoingRecord } from '@evp/core';
import type { SuppressionEntry } from '@evp/schemas';
import type { Suppression } from './model';

/**
 * Writes suppressions to the compacted topic every part reads (`privacy.suppressions`, key
 * `<app_id>:<id_hash>`): an entry when an erasure suppresses a person, a tombstone when the
 * suppression is lifted. `send` resolves once durable, so an erasure deletes nothing before every
 * part can learn the suppression.
 */
export function suppressionLog(producer: BusProducer) {
  const send = (messages: OutgoingRecord[]) => (messages.length === 0 ? Promise.resolve() : producer.send(topics.privacySuppressions, messages));
  return {
    announce: (appId: string, suppressions: Suppression[]) =>
      send(
        suppressions.map((s) => {
          const entry: SuppressionEntry = { app_id: appId, id_hash: s.id_hash, kind: s.kind, request_id: s.request_id, at: s.at };
          return { key: suppressionKey(appId, s.id_hash), value: Buffer.from(JSON.stringify(entry)) };
        }),
      ),
    lift: (appId: string, suppressions: Suppression[]) => send(suppressions.map((s) => ({ key: suppressionKey(appId, s.id_hash), value: null }))),
  };
}
