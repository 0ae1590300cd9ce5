import { compileSegment, type Condition, validateDefinition } from '@evp/segment-language';
import type { SegmentDefinitions } from './model';
import type { SegmentsServiceDeps } from './service';

/**
 * The language as the segments service takes it (`check`, `compile`): references resolve against the
 * app's saved segments, read once per call.
 */
export function segmentLanguage(definitions: Pick<SegmentDefinitions, 'list'>): Pick<SegmentsServiceDeps, 'check' | 'compile'> {
  const lookup = async (appId: string) => {
    const byId = new Map<string, Condition>((await definitions.list(appId)).map((s) => [s.id, s.definition]));
    return (id: string) => byId.get(id);
  };
  return {
    check: async (appId, json, selfId) => validateDefinition(json, { definitionOf: await lookup(appId), ...(selfId === undefined ? {} : { selfId }) }),
    compile: async (appId, definition) => compileSegment(definition, { definitionOf: await lookup(appId) }),
  };
}
