import type { CanonicalEvent, IngestContext } from '../../canonical';
import type { ValidationResult } from '../../dsl/validate';
import type { EventDef } from '../../dsl/types';
import type { Reason } from '../../rules/registry';
import type { AdaptedEvent } from '../flat-ctx/adapt';
import type { SentAt } from '../sent-at';
import type { EnvelopeFacts, RawEvent } from '../types';

/**
 * One event on its way from a read log to a canonical event: what the steps (pipeline.ts) read and
 * what each adds. A step fills its own fields and appends to `reasons` (the event's reasons: all of
 * them are reported together) and `quirks` (warnings, gated by the client at the end); fields of
 * later steps are unset until their step ran. One plain object per event, written in place: this
 * is the validator's hot path.
 */
export interface EventDraft {
  readonly raw: RawEvent;
  readonly facts: EnvelopeFacts;
  readonly sent: SentAt;
  readonly ctx: IngestContext;
  /** JSON path of the log in the body (`$.data[3]`). */
  readonly path: string;
  reasons: Reason[];
  quirks: Reason[];
  /** resolveName: the definition the sent name resolves to. */
  def: EventDef | undefined;
  /** resolveName: where a name or props reason points (`.name`/`.ctx` or `.type`/`.props`). */
  namePath: string;
  propsPath: string;
  /** readTime: epoch ms, undefined when unreadable. */
  time: number | undefined;
  /** adaptCtx: a flat-ctx client's props rebuilt in the spec's shape (current form only). */
  adapted: AdaptedEvent | undefined;
  /** validateProps: the checked props. */
  validated: ValidationResult | undefined;
  /** gateQuirks: the warnings the client's gates accept. */
  warnings: readonly Reason[];
}

/** `readReasons`: faults the log reader found in the log's own fields (time, online, property), reported with the rest. */
export function draftOf(raw: RawEvent, facts: EnvelopeFacts, sent: SentAt, ctx: IngestContext, path: string, readReasons: readonly Reason[]): EventDraft {
  return {
    raw,
    facts,
    sent,
    ctx,
    path,
    reasons: readReasons.length > 0 ? [...readReasons] : [],
    quirks: [],
    def: undefined,
    namePath: '',
    propsPath: '',
    time: undefined,
    adapted: undefined,
    validated: undefined,
    warnings: [],
  };
}

/** A step: fills its part of the draft; false ends the event as rejected with `draft.reasons`. */
export type EventStep = (draft: EventDraft) => boolean;

/** The last step's result: the event, or its reasons. */
export type ToCanonical = { event: CanonicalEvent } | { reasons: Reason[] };
