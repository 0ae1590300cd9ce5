import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_QUIRKS } from '.';

describe('client quirks', () => {
  it('have unique snake_case rules and say who sends them', () => {
    const rules = CLIENT_QUIRKS.map((q) => q.rule);
    expect(new Set(rules).size).toBe(rules.length);
    for (const q of CLIENT_QUIRKS) {
      expect(q.rule).toMatch(/^[a-z][a-z0-9_]*$/);
      expect([q.sends, q.becomes, q.clients, q.source].every((s) => s.trim().length > 0)).toBe(true);
    }
  });

  it('are each listed in docs/data-contract.md with their clients', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/data-contract.md'), 'utf8');
    for (const q of CLIENT_QUIRKS) expect(doc).toContain(`| \`${q.rule}\` |`);
  });
});
