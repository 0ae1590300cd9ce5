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
      const { __extra, ...props } = e.props as Record<string, unknown>;
      expect(back).toEqual({ ...e, props: { ...props, ...((__extra as object) ?? {}) } });
    }
    expect(events[0]!.meta).toEqual({ n: [1, 2] });
  });
});
