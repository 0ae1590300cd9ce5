import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_QUIRKS, gateEntryText, type ClientQuirk } from '../quirks';

export const DATA_CONTRACT_PATH = 'docs/data-contract.md';
// Prettier leaves the generated table as written (it would pad the cells, and the file would be stale).
const BEGIN = '<!-- client-quirks:begin (generated from schemas/src/quirks; npm run generate -w @evp/schemas) -->\n<!-- prettier-ignore-start -->';
const END = '<!-- prettier-ignore-end -->\n<!-- client-quirks:end -->';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The client lines a quirk is accepted from (clients/identity.ts) and, for any other client, the rule it meets instead. */
const gateCell = (q: ClientQuirk) =>
  q.gate === 'every' ? 'every client (the spec allows it)' : `${q.gate.map((l) => `\`${gateEntryText(l)}\``).join(', ')} (else \`${q.otherwise}\`)`;

/** The quirk table: one row per known client quirk, by the warning rule it is reported under. */
function quirksTable(): string {
  if (CLIENT_QUIRKS.length === 0) return '_No client quirks are registered._';
  const rows = [...CLIENT_QUIRKS]
    .sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))
    .map((q) => `| \`${q.rule}\` | ${cell(q.sends)} | ${cell(q.becomes)} | ${cell(q.clients)} | ${gateCell(q)} | ${cell(q.source)} |`);
  return [
    '| warning | the client sends | the platform makes of it | clients | gate: accepted from (else) | source |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/**
 * docs/data-contract.md with its client-quirk section (between the markers) written from the quirk
 * lists. The rest of the page is hand-written: this is the one generated file read from disk.
 */
export function dataContractWithQuirks(root: string): string {
  const text = readFileSync(join(root, DATA_CONTRACT_PATH), 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start === -1 || end < start) throw new Error(`${DATA_CONTRACT_PATH} lacks the client-quirks markers`);
  return `${text.slice(0, start + BEGIN.length)}\n\n${quirksTable()}\n\n${text.slice(end)}`;
}
