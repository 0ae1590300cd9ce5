import type { ClientLine } from '../clients/identity';
import { RULES, type Reason, type RuleName } from '../rules/registry';
import { CLIENT_QUIRKS } from './index';

interface Gate {
  /** Null: accepted from every client (`gate: 'every'`). */
  allowed: ReadonlySet<ClientLine> | null;
  otherwise: RuleName;
  otherwiseIsError: boolean;
  clients: string;
}

const GATES = new Map<RuleName, Gate>(
  CLIENT_QUIRKS.map((q) => [
    q.rule,
    {
      allowed: q.gate === 'every' ? null : new Set(q.gate),
      otherwise: q.otherwise,
      otherwiseIsError: RULES[q.otherwise].severity === 'error',
      clients: q.clients,
    },
  ]),
);

/**
 * An event's warnings as its client may have them. A quirk warning (schemas/src/quirks) is kept only
 * when the event's client is one its gate names; for any other client it becomes the spec's rule
 * (`otherwise`): an error appended to `errors` (the event is rejected, all its reasons in one answer),
 * or, for a warning rule, the same reading under that warning. Runs once per event on the hot path:
 * a few map lookups, and the input array itself is returned when nothing changes.
 */
export function gateWarnings(warnings: readonly Reason[], line: ClientLine | null, errors: Reason[]): readonly Reason[] {
  let kept: Reason[] | undefined;
  for (let i = 0; i < warnings.length; i++) {
    const w = warnings[i] as Reason;
    const gate = GATES.get(w.rule);
    if (gate === undefined || gate.allowed === null || (line !== null && gate.allowed.has(line))) {
      kept?.push(w);
      continue;
    }
    kept ??= warnings.slice(0, i);
    const reason: Reason = {
      path: w.path,
      rule: gate.otherwise,
      message: `${w.message} — a quirk of ${gate.clients} (${w.rule}), accepted only from those clients; this client must send what the spec says`,
    };
    if (gate.otherwiseIsError) errors.push(reason);
    else kept.push(reason);
  }
  return kept ?? warnings;
}
