import avro from 'avsc';
import { BLOCKS } from '@evp/core';
import { normalizeUpload } from '../normalize/normalize';
import { ctx, currentEnvelope, identifyLog, pageLog } from '../__fixtures__/envelopes';
import { blockEventSchema } from './block-schema';
import { canonicalFromAvro, canonicalToAvro } from './canonical-codec';

describe('canonical events in Avro', () => {
  it('derives a valid schema for every block', () => {
    for (const block of BLOCKS) expect(() => avro.Type.forSchema(blockEventSchema(block) as avro.Schema)).not.toThrow();
  });

  it('round-trips canonical events exactly, extras and meta included', () => {
    const log = { ...pageLog, ctx: { ...pageLog.ctx, campaign: 'spring', meta: { n: [1, 2] } } };
    const events = normalizeUpload(currentEnvelope([log, identifyLog]), ctx).accepted.map((a) => a.event);
    const type = avro.Type.forSchema(blockEventSchema('core') as avro.Schema);
    for (const e of events) {
      const decoded = type.fromBuffer(type.toBuffer(canonicalToAvro(e))) as Record<string, unknown>;
      const back = canonicalFromAvro({ ...decoded });
      const { __extra, ...props } = e.props;
      expect(back).toEqual({ ...e, props: { ...props, ...((__extra as object) ?? {}) } });
    }
    expect(events[0]!.meta).toEqual({ n: [1, 2] });
  });

  it('reads avsc record instances as decoded (prototype methods are not fields), keys in canonical order', () => {
    const events = normalizeUpload(currentEnvelope([pageLog, identifyLog]), ctx).accepted.map((a) => a.event);
    const type = avro.Type.forSchema(blockEventSchema('core') as avro.Schema);
    // Twice over: the second pass reads through the per-block memo the first one filled.
    for (let pass = 0; pass < 2; pass++) {
      for (const e of events) {
        const back = canonicalFromAvro(type.fromBuffer(type.toBuffer(canonicalToAvro(e))) as Record<string, unknown>);
        expect(back).toEqual(e);
        expect(Object.keys(back)).toEqual(Object.keys(e));
      }
    }
  });

  it('reads a record of another layout (a field this schema version lacks) field by field, in its order', () => {
    const [e] = normalizeUpload(currentEnvelope([pageLog]), ctx).accepted.map((a) => a.event);
    const { event_id, ...rest } = canonicalToAvro(e!);
    // A newer writer's record: an extra common field, and event_id moved behind it.
    const back = canonicalFromAvro({ shard: 7, event_id, ...rest });
    expect(back).toEqual({ ...e, shard: 7 });
    expect(Object.keys(back)).toEqual(['shard', 'event_id', ...Object.keys(e!).filter((k) => k !== 'event_id')]);
  });

  it('keeps FLOAT values exact (they travel as Avro double) and extras named like built-ins', () => {
    const rate = { time: '2023-11-15 03:43:20.123', __ol: true, name: 'rate', property: 'r', ctx: { rate_value: 4.3, type: 'app', subject_id: 's' } };
    const body = JSON.parse(JSON.stringify(currentEnvelope([rate])).replace('"ctx":{', '"ctx":{"__proto__":"x",'));
    const [accepted] = normalizeUpload(body, ctx).accepted;
    const type = avro.Type.forSchema(blockEventSchema('core') as avro.Schema);
    const back = canonicalFromAvro({ ...(type.fromBuffer(type.toBuffer(canonicalToAvro(accepted!.event))) as Record<string, unknown>) });
    expect(back.props.rate_value).toBe(4.3);
    expect(Object.getOwnPropertyDescriptor(back.props, '__proto__')?.value).toBe('x');
  });
});
