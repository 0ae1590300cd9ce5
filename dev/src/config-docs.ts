import { optionsTable } from '@evp/core';
import { CAMPAIGN_WORKER_OPTIONS, SEGMENT_ENGINE_OPTIONS, SINK_OPTIONS } from '@evp/segmenter';
import { VALIDATOR_OPTIONS } from '@evp/validator';

/**
 * The options tables docs/configuration.md shows, by the name of their section's markers
 * (`<!-- options:NAME -->` … `<!-- /options:NAME -->`): each table is written once, beside its part.
 */
export const CONFIG_DOC_TABLES: Record<string, string> = {
  validator: optionsTable(VALIDATOR_OPTIONS),
  sink: optionsTable(SINK_OPTIONS),
  segments: optionsTable(SEGMENT_ENGINE_OPTIONS),
  campaigns: optionsTable(CAMPAIGN_WORKER_OPTIONS),
};

const section = (name: string) => new RegExp(`(<!-- options:${name} -->)[\\s\\S]*?(<!-- /options:${name} -->)`);

/** The page with each marked section's table rewritten from its options; a missing section throws. */
export function withConfigTables(page: string): string {
  let out = page;
  for (const [name, table] of Object.entries(CONFIG_DOC_TABLES)) {
    if (!section(name).test(out)) throw new Error(`docs/configuration.md has no <!-- options:${name} --> section`);
    out = out.replace(section(name), (_m, open: string, close: string) => `${open}\n\n${table}\n\n${close}`);
  }
  return out;
}

/** A Markdown table's rows as trimmed cells (the separator row left out), whatever its column padding. */
export function tableCells(table: string): string[][] {
  return table
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s:|-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The table of one marked section of the page, as cells. */
export function sectionCells(page: string, name: string): string[][] {
  const m = section(name).exec(page);
  return m ? tableCells(m[0]) : [];
}
