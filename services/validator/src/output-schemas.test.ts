import { topics } from '@evp/core';
import { blockEventSchema, canonicalToAvro, normalizeUpload, type CanonicalEvent } from '@evp/schemas';
import { ctx, earlierEnvelope, earlierPage } from '@evp/schemas/src/__fixtures__/envelopes';
import { Framer, type OutputSchema } from './output-schemas';

/**
 * The Framer's event path: the generated writers where the topic's registered schema is the current
 * block schema, avsc's encode of canonicalToAvro(e) everywhere else, with the same bytes and errors.
 */
const [accepted] = normalizeUpload(earlierEnvelope([earlierPage]), ctx).accepted;
const page = accepted!.event;
const topic = topics.events('core');
const current: OutputSchema = { topic, id: 7, schema: blockEventSchema('core') as object };
/** The core schema with one more optional field at its end: a layout the generated writers do not write. */
const other = blockEventSchema('core') as { fields: object[] };
const extended: OutputSchema = { topic, id: 8, schema: { ...other, fields: [...other.fields, { name: 'later', type: ['null', 'string'], default: null }] } };

const framed = (framer: Framer, e: CanonicalEvent) => {
  const end = framer.writeEvent(e, new Map(), 0);
  return Buffer.from(framer.takeOut(end), 0, end);
};
const viaAvsc = (framer: Framer, e: CanonicalEvent) => {
  const end = framer.write(topic, canonicalToAvro(e), 0);
  return Buffer.from(framer.takeOut(end), 0, end);
};

describe('Framer.writeEvent', () => {
  it('frames an event as avsc frames its record, with the current schema and with another', () => {
    for (const schema of [current, extended]) {
      const framer = new Framer([schema]);
      expect(framed(framer, page)).toEqual(viaAvsc(framer, page));
    }
    // The other layout really is other: past the head (its own schema id), one more null at the end.
    expect(framed(new Framer([extended]), page).subarray(5)).toEqual(Buffer.concat([framed(new Framer([current]), page).subarray(5), Buffer.from([0])]));
  });

  it('fails on an event its schema refuses with avsc’s error, as write does', () => {
    const framer = new Framer([current]);
    const bad = { ...page, props: { ...page.props, title: 12 } } as CanonicalEvent;
    let expected = '';
    try {
      framer.write(topic, canonicalToAvro(bad), 0);
    } catch (err) {
      expected = (err as Error).message;
    }
    expect(expected).not.toBe('');
    expect(() => framer.writeEvent(bad, new Map(), 0)).toThrow(expected);
  });
});
