/** A draft campaign row as the campaigns table stores it: the ClickHouse interface tests' seed data. */
export function campaignRow(app: string, id: string, at = '2026-01-01 00:00:00.000') {
  return { app_id: app, campaign_id: id, version: 1, name: id, document: '{}', state: 'draft', created_at: at, updated_at: at };
}
