import { gateWarnings } from '../../quirks/gate';
import type { Reason } from '../../rules/registry';
import type { EventDraft } from './draft';

/**
 * Every quirk is accepted only from the clients its gate names; from any other client it is the
 * spec's rule, reported with the event's other reasons (quirks/gate.ts). The end of the checks: an
 * event with any reason is rejected with all of them.
 */
export function gateQuirks(d: EventDraft): boolean {
  const gathered: Reason[] = [...d.facts.warnings, ...d.quirks, ...(d.validated?.warnings ?? [])];
  if (d.sent.warning) gathered.push(d.sent.warning);
  d.warnings = gateWarnings(gathered, d.facts, d.reasons);
  return d.reasons.length === 0;
}
