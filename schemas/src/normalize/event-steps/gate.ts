import { gateWarnings } from '../../quirks/gate';
import type { Reason } from '../../rules/registry';
import type { EventDraft } from './draft';

/**
 * Every quirk is accepted only from the clients its gate names; from any other client it is the
 * spec's rule, reported with the event's other reasons (quirks/gate.ts). The end of the checks: an
 * event with any reason is rejected with all of them.
 */
export function gateQuirks(d: EventDraft): boolean {
  // Appended by loops, not spread (the iterator protocol per event): most events have none at all.
  const gathered: Reason[] = [];
  append(gathered, d.facts.warnings);
  append(gathered, d.quirks);
  if (d.validated !== undefined) append(gathered, d.validated.warnings);
  if (d.sent.warning) gathered.push(d.sent.warning);
  d.warnings = gateWarnings(gathered, d.facts, d.reasons);
  return d.reasons.length === 0;
}

function append(to: Reason[], list: readonly Reason[]): void {
  for (let i = 0; i < list.length; i++) to.push(list[i] as Reason);
}
