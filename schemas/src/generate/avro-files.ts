import { actionLogSource, blockSources, catalogSources, customCatalogSource, membershipSource, receiptSource, rejectedSource } from './sources';
import { stableJson } from './stable-json';
import type { AvroSchema } from '../avro/derive';

/** Repository-relative folder of the committed .avsc files; one per topic, named after the topic. */
export const AVRO_DIR = 'schemas/generated/avro';

export const avscPath = (topic: string) => `${AVRO_DIR}/${topic}.avsc`;

/** Topic → the schema its producer registers for `<topic>-value` (the validator; the segmenter for `segments.membership`; the action store's relay for `actions.log`). */
export function derivedTopicSchemas(): Map<string, AvroSchema> {
  const out = new Map<string, AvroSchema>();
  const add = (topic: string, schema: AvroSchema) => {
    if (out.has(topic)) throw new Error(`two schemas derived for topic ${topic}`);
    out.set(topic, schema);
  };
  for (const b of blockSources()) add(b.topic, b.avro);
  for (const c of catalogSources()) add(c.topic, c.avro);
  add(customCatalogSource.topic, customCatalogSource.avro);
  add(rejectedSource.topic, rejectedSource.avro);
  add(receiptSource.topic, receiptSource.avro);
  add(membershipSource.topic, membershipSource.avro);
  add(actionLogSource.topic, actionLogSource.avro);
  return out;
}

export function avroFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [topic, schema] of derivedTopicSchemas()) files.set(avscPath(topic), stableJson(schema));
  return files;
}
