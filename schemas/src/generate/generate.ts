import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AVRO_DIR, avroFiles } from './avro-files';
import { CATALOGS_REFERENCE_PATH, EVENTS_REFERENCE_PATH, catalogsReference, eventsReference } from './reference';
import { DATA_CONTRACT_PATH, dataContractWithQuirks } from './quirks-doc';
import { EVENT_WRITERS_PATH, eventWritersFile } from './event-writers';
import { PROP_CHECKS_PATH, propChecksFile } from './prop-checks';
import { INTERNAL_REFERENCE_PATH, internalReference } from './internal-reference';
import { RECORDS_PATH, recordsFile } from './records';
import { RULES_REFERENCE_PATH, rulesReference } from './rules-doc';
import { TYPES_PATH, typesFile } from './ts-types';
import { WEB_SDK_TYPES_PATH, webSdkBlockFiles, webSdkTypesFile } from './web-sdk-types';

export const REGENERATE_COMMAND = 'npm run generate -w @evp/schemas';

/** The repository root (schemas/src/generate → ../../..). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Every generated file, repository-relative path → content, in a stable order. Pure but for one
 * read: docs/data-contract.md is hand-written around its generated client-quirk table.
 */
export function generateFiles(root = REPO_ROOT): Map<string, string> {
  const files = new Map<string, string>(avroFiles());
  files.set(DATA_CONTRACT_PATH, dataContractWithQuirks(root));
  files.set(TYPES_PATH, typesFile());
  files.set(RECORDS_PATH, recordsFile());
  files.set(EVENT_WRITERS_PATH, eventWritersFile());
  files.set(PROP_CHECKS_PATH, propChecksFile());
  files.set(EVENTS_REFERENCE_PATH, eventsReference());
  files.set(CATALOGS_REFERENCE_PATH, catalogsReference());
  files.set(WEB_SDK_TYPES_PATH, webSdkTypesFile());
  for (const [path, text] of webSdkBlockFiles()) files.set(path, text);
  files.set(RULES_REFERENCE_PATH, rulesReference());
  files.set(INTERNAL_REFERENCE_PATH, internalReference());
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** .avsc files on disk that the definitions no longer produce (a removed topic must not linger). */
function orphanAvroFiles(files: Map<string, string>, root = REPO_ROOT): string[] {
  const dir = join(root, AVRO_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .map((f) => `${AVRO_DIR}/${f}`)
    .filter((p) => !files.has(p))
    .sort();
}

/** Files whose committed content differs from what the definitions produce, with the reason. */
export function staleFiles(root = REPO_ROOT): { path: string; reason: 'missing' | 'different' | 'orphan' }[] {
  const files = generateFiles(root);
  const out: { path: string; reason: 'missing' | 'different' | 'orphan' }[] = [];
  for (const [path, content] of files) {
    const abs = join(root, path);
    if (!existsSync(abs)) out.push({ path, reason: 'missing' });
    else if (readFileSync(abs, 'utf8') !== content) out.push({ path, reason: 'different' });
  }
  for (const path of orphanAvroFiles(files, root)) out.push({ path, reason: 'orphan' });
  return out;
}

/** Writes every generated file (only those that changed) and removes orphaned .avsc files. */
export function writeGenerated(root = REPO_ROOT): { written: string[]; removed: string[]; unchanged: number } {
  const files = generateFiles(root);
  const written: string[] = [];
  let unchanged = 0;
  for (const [path, content] of files) {
    const abs = join(root, path);
    if (existsSync(abs) && readFileSync(abs, 'utf8') === content) {
      unchanged += 1;
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    written.push(path);
  }
  const removed = orphanAvroFiles(files, root);
  for (const path of removed) rmSync(join(root, path));
  return { written, removed, unchanged };
}
