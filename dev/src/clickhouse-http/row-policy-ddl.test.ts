import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { analystDdl } from './row-policy-ddl';

const input = {
  grant: { keyId: 'demo-analyst', appId: 'demo-app', role: 'analyst' as const },
  sha256: 'a'.repeat(64),
  database: 'analytics',
  tables: ['events', 'campaigns'],
  limits: { maxExecutionSeconds: 10, maxMemoryBytes: 1073741824, maxResultRows: 100000, maxResultBytes: 104857600, queriesPerHour: 1000 },
};

describe('the docker-compose DDL of an analyst key', () => {
  it('renders a readonly profile with constant limits, a quota, the user, SELECT and one row policy per table', () => {
    expect(analystDdl(input)).toEqual([
      "CREATE SETTINGS PROFILE IF NOT EXISTS analyst_readonly SETTINGS readonly = 1 CONST, max_execution_time = 10 CONST, max_memory_usage = 1073741824 CONST, max_result_rows = 100000 CONST, max_result_bytes = 104857600 CONST, result_overflow_mode = 'throw' CONST",
      'CREATE QUOTA IF NOT EXISTS key_demo_analyst_quota FOR INTERVAL 1 hour MAX queries = 1000, execution_time = 10000 TO key_demo_analyst',
      `CREATE USER IF NOT EXISTS key_demo_analyst IDENTIFIED WITH sha256_hash BY '${'a'.repeat(64)}' DEFAULT DATABASE analytics SETTINGS PROFILE analyst_readonly`,
      'GRANT SELECT ON analytics.* TO key_demo_analyst',
      "CREATE ROW POLICY IF NOT EXISTS key_demo_analyst_events ON analytics.events USING app_id = 'demo-app' TO key_demo_analyst",
      "CREATE ROW POLICY IF NOT EXISTS key_demo_analyst_campaigns ON analytics.campaigns USING app_id = 'demo-app' TO key_demo_analyst",
    ]);
  });

  it('is printed in docs/analytics.md as rendered', () => {
    const doc = readFileSync(resolve(__dirname, '../../../docs/analytics.md'), 'utf8');
    for (const statement of analystDdl(input)) expect(doc).toContain(`${statement};`);
  });

  it('refuses an app id that could break out of the policy’s string', () => {
    expect(() => analystDdl({ ...input, grant: { ...input.grant, appId: "x' OR 1=1 --" } })).toThrow('invalid app id or key hash');
  });
});
