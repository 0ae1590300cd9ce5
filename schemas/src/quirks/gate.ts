import { inRange, versionParts, type ClientLine, type Sender } from '../clients/identity';
import { RULES, type Reason, type RuleName } from '../rules/registry';
import { CLIENT_QUIRKS } from './index';
import type { GateEntry } from './types';

interface Gate {
  /** Null: accepted from every client (`gate: 'every'`). */
  lines: ReadonlySet<ClientLine> | null;
  /** Lines accepted between two sdk versions only. */
  ranges: readonly { line: ClientLine; from: readonly number[]; to: readonly number[] }[];
  otherwise: RuleName;
  otherwiseIsError: boolean;
  clients: string;
}

const whole = (e: GateEntry): e is ClientLine => typeof e === 'string';

function versions(v: string): number[] {
  const parts = versionParts(v);
  if (parts === undefined) throw new Error(`quirk gate version ${v} is not <n>.<n>.<n>`);
  return parts;
}

const GATES = new Map<RuleName, Gate>(
  CLIENT_QUIRKS.map((q) => [
    q.rule,
    {
      lines: q.gate === 'every' ? null : new Set(q.gate.filter(whole)),
      ranges: q.gate === 'every' ? [] : q.gate.flatMap((e) => (whole(e) ? [] : [{ line: e.line, from: versions(e.from), to: versions(e.to) }])),
      otherwise: q.otherwise,
      otherwiseIsError: RULES[q.otherwise].severity === 'error',
      clients: q.clients,
    },
  ]),
);

export type { Sender } from '../clients/identity';

function allowedLine(gate: Gate, line: ClientLine, version: readonly number[] | null): boolean {
  if (gate.lines?.has(line) === true) return true;
  // An unknown version (a catalog upload) is admitted by a gate naming the line between any versions.
  for (const r of gate.ranges) if (r.line === line && (version === null || inRange(version, r.from, r.to))) return true;
  return false;
}

function allowed(gate: Gate, sender: Sender): boolean {
  if (gate.lines === null) return true;
  if (sender.line === null) return false;
  if (allowedLine(gate, sender.line, sender.lineVersion)) return true;
  for (const line of sender.orLines ?? []) if (allowedLine(gate, line, null)) return true;
  return false;
}

/**
 * An event's (or a catalog record's) warnings as its client may have them. A quirk warning (schemas/src/quirks) is kept only
 * when the event's client is one its gate names (the line, and the sdk version where the gate gives
 * a range); for any other client it becomes the spec's rule (`otherwise`): an error appended to
 * `reasons` (the event is rejected, all its reasons in one answer), or, for a warning rule, the same
 * reading under that warning. Runs once per event on the hot path: a map lookup per warning, and the
 * input array itself is returned when nothing changes.
 */
export function gateWarnings(warnings: readonly Reason[], sender: Sender, reasons: Reason[]): readonly Reason[] {
  let kept: Reason[] | undefined;
  for (let i = 0; i < warnings.length; i++) {
    const w = warnings[i] as Reason;
    const gate = GATES.get(w.rule);
    if (gate === undefined || allowed(gate, sender)) {
      kept?.push(w);
      continue;
    }
    kept ??= warnings.slice(0, i);
    const reason: Reason = {
      path: w.path,
      rule: gate.otherwise,
      message: `${w.message} — a quirk of ${gate.clients} (${w.rule}), accepted only from those clients; this client must send what the spec says`,
    };
    if (gate.otherwiseIsError) reasons.push(reason);
    else kept.push(reason);
  }
  return kept ?? warnings;
}
