import type { Condition } from './definition';

/** The segment ids a definition names directly (`{"segment": id}` anywhere in it). */
export function segmentRefs(c: Condition): string[] {
  if ('all' in c) return c.all.flatMap(segmentRefs);
  if ('any' in c) return c.any.flatMap(segmentRefs);
  if ('not' in c) return segmentRefs(c.not);
  if ('segment' in c) return [c.segment];
  return [];
}

/** Segments that reference `id` directly or through others: they change when it does. */
export function dependentsOf(id: string, segments: readonly { id: string; definition: Condition }[]): string[] {
  const found = new Set<string>();
  let frontier = new Set([id]);
  while (frontier.size > 0) {
    const next = new Set<string>();
    for (const s of segments) {
      if (s.id === id || found.has(s.id)) continue;
      if (segmentRefs(s.definition).some((r) => frontier.has(r))) {
        found.add(s.id);
        next.add(s.id);
      }
    }
    frontier = next;
  }
  return [...found];
}
