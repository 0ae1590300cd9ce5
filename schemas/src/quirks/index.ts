import { currentFormQuirks } from './current-form';
import { earlierFormQuirks } from './earlier-form';
import { iosLinesQuirks } from './ios-lines';
import { serverImportQuirks } from './server-import';
import type { RuleName } from '../rules/registry';
import type { ClientQuirk } from './types';
import { valueQuirks } from './values';

export type { ClientQuirk, GateEntry } from './types';

/** Every known client quirk, by the warning rule it is reported under. */
export const CLIENT_QUIRKS: readonly ClientQuirk[] = [...valueQuirks, ...iosLinesQuirks, ...currentFormQuirks, ...earlierFormQuirks, ...serverImportQuirks];

const byRule = new Map(CLIENT_QUIRKS.map((q) => [q.rule, q]));

/** The quirk a warning rule names, if it names one. */
export const clientQuirk = (rule: RuleName): ClientQuirk | undefined => byRule.get(rule);

/** A gate entry in words: `ios-cf`, or `ios-cf 0.4.3–0.5.3`. */
export const gateEntryText = (e: import('./types').GateEntry): string => (typeof e === 'string' ? e : `${e.line} ${e.from}–${e.to}`);
