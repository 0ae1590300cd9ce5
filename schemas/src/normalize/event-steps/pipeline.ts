import type { IngestContext } from '../../canonical';
import type { Reason } from '../../rules/registry';
import type { SentAt } from '../sent-at';
import type { EnvelopeFacts, RawEvent } from '../types';
import { buildEvent } from './build';
import { checkBlock } from './declared-block';
import { draftOf, type EventStep, type ToCanonical } from './draft';
import { gateQuirks } from './gate';
import { resolveName } from './name';
import { adaptCtx, validateProps } from './props';
import { readTime } from './time';

/**
 * The steps of one read log to a canonical event, in order (docs/architecture.md, step 5 "Normalise"
 * names them). Before them normalize.ts bounds the event's size and reads the log in its envelope's
 * form; after them buildEvent makes the event. Each step is one function with its own test
 * (steps.test.ts); a step that returns false ends the event as rejected with every reason so far.
 */
export const EVENT_STEPS: readonly EventStep[] = [resolveName, checkBlock, readTime, adaptCtx, validateProps, gateQuirks];

/** One read log → its canonical event, or all its reasons. */
export function toCanonical(raw: RawEvent, facts: EnvelopeFacts, sent: SentAt, ctx: IngestContext, path: string, readReasons: readonly Reason[]): ToCanonical {
  const draft = draftOf(raw, facts, sent, ctx, path, readReasons);
  for (let i = 0; i < EVENT_STEPS.length; i++) if (!(EVENT_STEPS[i] as EventStep)(draft)) return { reasons: draft.reasons };
  return { event: buildEvent(draft) };
}
