import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CAMPAIGN_RULES } from './rules';
import { CAMPAIGN_COMMANDS, CAMPAIGN_STATES, transition } from './states';
import { TemplateEngine } from './templates';
import { validateCampaign } from './validate';

// docs/campaigns.md stays true: its documents are valid, its rule table is the rules, its state
// table is the transitions.
const doc = readFileSync(resolve(__dirname, '../../../../docs/campaigns.md'), 'utf8');
const section = (from: string, to: string) => doc.slice(doc.indexOf(from), doc.indexOf(to));
const ctx = { segmentExists: (id: string) => id === 'SEGMENT_ID', templates: new TemplateEngine() };

describe('docs/campaigns.md', () => {
  it('every example document is valid, one per trigger kind besides the first', () => {
    const documents = [...doc.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((m) => JSON.parse(m[1] as string) as unknown)
      .filter((j): j is { name: string; trigger: object } => typeof j === 'object' && j !== null && 'name' in j);
    expect(documents.map((d) => Object.keys(d.trigger))).toEqual([['event'], ['segment_entry'], ['event'], ['schedule', 'segment'], ['api']]);
    for (const d of documents) expect({ name: d.name, result: validateCampaign(d, ctx) }).toMatchObject({ result: { ok: true } });
  });

  it('lists exactly the validation rules, in order', () => {
    const rows = [...section('### Validation rules', '## Templates').matchAll(/^\| `([a-z_]+)` *\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(Object.keys(CAMPAIGN_RULES));
  });

  it('shows the transitions', () => {
    const rows = [...section('### States', '### Validation rules').matchAll(/^\| `([a-z]+)` *\|(.*)\|$/gm)].map((m) => [
      m[1],
      (m[2] as string).split('|').map((c) => c.trim().replace(/`/g, '')),
    ]);
    const expected = CAMPAIGN_STATES.map((s) => [s, CAMPAIGN_COMMANDS.map((c) => ((t) => (t.ok ? t.value.state : 'refused'))(transition(s, c)))]);
    expect(rows).toEqual(expected);
  });

  it('the API section’s example documents are valid (the created campaign, the previewed one)', () => {
    const api = doc.slice(doc.indexOf('## API'));
    const created = /curl -s -X POST \$BASE\/v1\/campaigns "\$\{H\[@\]\}" -d '([\s\S]*?)'\n/.exec(api)?.[1];
    const previewed = /<<'JSON'\n([\s\S]*?)\nJSON/.exec(api)?.[1];
    expect(validateCampaign(JSON.parse(created as string), ctx)).toMatchObject({ ok: true, value: { name: 'Welcome back' } });
    expect(validateCampaign((JSON.parse(previewed as string) as { campaign: unknown }).campaign, ctx)).toMatchObject({ ok: true });
  });
});
