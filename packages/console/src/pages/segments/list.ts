/// <reference lib="dom" />
import type { DataAnswer, SegmentWithCount } from '@evp/segmenter';
import { api, byId, clear, every, link, table, text } from '../../shell';

/** The list of segments with their member counts, every 5 s. */
export function segmentList(): void {
  every(5000, async () => {
    const r = await api<DataAnswer<SegmentWithCount>>('/v1/segments?member_counts=true');
    const host = clear(byId('segments'));
    if (r.data.length === 0) {
      host.appendChild(text('p', 'No segments yet: create one with POST /v1/segments (docs/segments.md).', 'meta'));
      return;
    }
    const rows = r.data.map((s) => [
      link(`/console/segments/${encodeURIComponent(s.id)}`, s.name),
      text('span', s.member_count, 'count'),
      String(s.version),
      s.updated_at,
    ]);
    const t = table(['Segment', 'Members', 'Version', 'Updated'], rows, 'segment-list');
    Array.from(t.tBodies[0]!.rows).forEach((tr, i) => {
      tr.dataset.segmentId = r.data[i]!.id;
      tr.dataset.testid = 'segment-row';
    });
    host.appendChild(t);
  });
}
