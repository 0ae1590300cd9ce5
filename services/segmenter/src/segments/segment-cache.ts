import { errorMessage, type Logger } from '@evp/core';
import type { CompiledSegment } from '@evp/segment-language';
import type { Segment, SegmentDefinitions } from './model';
import type { SegmentEntry } from './work';

/**
 * Every live segment with its compiled query, per app, held in memory so the sink's hook costs no
 * query: reloaded by `refresh()` (the engine calls it every few seconds). A segment created since
 * the last refresh gets no incremental work yet; the full recompute its creation requested covers
 * the events in between. Compiled queries are kept per (app, segment, version).
 */
export class SegmentCache {
  private byApp = new Map<string, SegmentEntry[]>();
  private compiled = new Map<string, Promise<CompiledSegment>>();

  constructor(
    private readonly definitions: SegmentDefinitions,
    private readonly compileFn: (segment: Segment) => CompiledSegment | Promise<CompiledSegment>,
    private readonly logger: Logger,
  ) {}

  /** The compiled query of this version of a segment (compiled once). */
  compile(segment: Segment): Promise<CompiledSegment> {
    const key = `${segment.app_id}\u0000${segment.id}\u0000${segment.version}`;
    let c = this.compiled.get(key);
    if (!c) {
      c = Promise.resolve().then(() => this.compileFn(segment));
      // A failure is not kept: the next call tries again.
      c.catch(() => this.compiled.delete(key));
      this.compiled.set(key, c);
    }
    return c;
  }

  async refresh(): Promise<void> {
    const segments = await this.definitions.listAll();
    const byApp = new Map<string, SegmentEntry[]>();
    const keep = new Set<string>();
    for (const s of segments) {
      let compiled: CompiledSegment;
      try {
        compiled = await this.compile(s);
      } catch (err) {
        // Saved definitions were checked; one that no longer compiles must not stop the others.
        this.logger.error({ err, app_id: s.app_id, segment_id: s.id, version: s.version }, `segment does not compile: ${errorMessage(err)}`);
        continue;
      }
      keep.add(`${s.app_id}\u0000${s.id}\u0000${s.version}`);
      const list = byApp.get(s.app_id) ?? [];
      byApp.set(s.app_id, list);
      list.push({ app_id: s.app_id, id: s.id, compiled });
    }
    for (const key of this.compiled.keys()) if (!keep.has(key)) this.compiled.delete(key);
    this.byApp = byApp;
  }

  forApp(appId: string): readonly SegmentEntry[] {
    return this.byApp.get(appId) ?? [];
  }

  all(): SegmentEntry[] {
    return [...this.byApp.values()].flat();
  }
}
