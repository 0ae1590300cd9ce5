import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_DOC_TABLES, sectionCells, tableCells } from './config-docs';

const page = readFileSync(resolve(__dirname, '../../docs/configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it.each(Object.keys(CONFIG_DOC_TABLES))('shows the %s options as their table says (npx tsx dev/src/write-config-docs.ts rewrites it)', (name) => {
    expect(sectionCells(page, name)).toEqual(tableCells(CONFIG_DOC_TABLES[name] as string));
  });

  it('names every variable of the tables once on the page', () => {
    const vars = Object.values(CONFIG_DOC_TABLES).flatMap((t) => [...t.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((m) => m[1] as string));
    expect(vars.length).toBeGreaterThan(15);
    for (const v of vars) expect(page.split(`\`${v}\``).length - 1).toBe(1);
  });
});
