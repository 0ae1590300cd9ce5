import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSqlExamples } from './sql-examples';

describe('parseSqlExamples', () => {
  it('takes each named ```sql block with the paragraph before it', () => {
    const md = [
      '# T',
      '',
      'Some intro',
      'over two lines:',
      '',
      '```sql',
      '-- name: first',
      'SELECT 1',
      '```',
      '',
      '```sql',
      'SELECT 2',
      '```',
      '',
      'Second:',
      '',
      '```sql',
      '-- name: second_one',
      'SELECT x',
      'FROM t',
      '```',
      '',
    ].join('\n');
    expect(parseSqlExamples(md)).toEqual([
      { name: 'first', description: 'Some intro over two lines', sql: '-- name: first\nSELECT 1' },
      { name: 'second_one', description: 'Second', sql: '-- name: second_one\nSELECT x\nFROM t' },
    ]);
  });

  it('finds every named example of docs/analytics.md', () => {
    const examples = parseSqlExamples(readFileSync(resolve(__dirname, '../../../../../docs/analytics.md'), 'utf8'));
    expect(examples.map((x) => x.name)).toEqual([
      'custom_catalog_kind',
      'daily_active_users',
      'cart_checkout_funnel',
      'nudge_response_rates',
      'action_funnel',
      'capped_by_reason',
      'responded_to_tag',
      'rejected_by_reason',
      'patients_with_encounters',
    ]);
    expect(examples[1]?.description).toBe('Daily active users per app (a distinct count, so duplicates do not matter and `FINAL` is not needed)');
  });
});
