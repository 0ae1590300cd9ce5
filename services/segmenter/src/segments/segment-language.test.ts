import type { Segment } from './model';
import { segmentLanguage } from './segment-language';

const saved = (app: string, id: string, definition: Segment['definition']): Segment => ({
  app_id: app,
  id,
  name: id,
  version: 1,
  definition,
  created_at: Date.UTC(2024, 0, 1),
  updated_at: Date.UTC(2024, 0, 1),
});

// The app's saved segments, as SegmentDefinitions.list gives them.
const segments: Record<string, Segment[]> = {
  shop: [saved('shop', 'buyers', { event: 'checkout' }), saved('shop', 'fans', { any: [{ segment: 'buyers' }, { event: 'rate' }] })],
  other: [saved('other', 'ghost', { event: 'page' })],
};
const lang = segmentLanguage({ list: async (app) => segments[app] ?? [] });

describe("segmentLanguage (the service's check and compile)", () => {
  it("resolves references against the app's own segments only", async () => {
    expect(await lang.check('shop', { not: { segment: 'fans' } })).toEqual({ ok: true, value: { not: { segment: 'fans' } } });
    expect(await lang.check('shop', { segment: 'ghost' })).toEqual({
      ok: false,
      reasons: [{ path: '$.segment', rule: 'unknown_segment', message: 'no segment ghost in this app' }],
    });
  });

  it('refuses a cycle through the segment being updated', async () => {
    expect(await lang.check('shop', { segment: 'fans' }, 'buyers')).toEqual({
      ok: false,
      reasons: [{ path: '$.segment', rule: 'segment_cycle', message: 'segment cycle: buyers → fans → buyers' }],
    });
  });

  it('compiles with references inlined', async () => {
    const c = await lang.compile('shop', { segment: 'fans' });
    expect({ events: c.events, segments: c.segments }).toEqual({ events: ['checkout', 'rate'], segments: ['buyers', 'fans'] });
  });
});
