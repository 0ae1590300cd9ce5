import type { Analytics } from '@evp/core';
import { insertEvents, userEvent } from './engine-harness';

const T = Date.UTC(2026, 10, 1, 12);

/**
 * One user and one patient of an app in every ClickHouse table that can hold a person: events (the
 * user's own, one naming the patient in a property, one in a nested list), the user and patient
 * catalogs, a rejected upload, a dead letter, a segment membership, a campaign outcome and the
 * action log. Returns the number of rows written per table.
 */
export async function seedPerson(analytics: Analytics, app: string, user: string, patient: string): Promise<Record<string, number>> {
  await insertEvents(analytics, [
    userEvent(app, user, 'page', T),
    { ...userEvent(app, user, 'patient', T + 1), block: 'patient_mgmt', props: { patient_id: patient, action: 'view' } },
    { ...userEvent(app, `${user}-colleague`, 'incident', T + 2), block: 'emergency_mgmt', props: { patient_list: [{ id: patient }] } },
  ]);
  const at = T;
  await analytics.insert('catalog_user', [{ app_id: app, id: user, received_at: at, request_id: 'seed', record: { id: user, country: 'KE' } }]);
  await analytics.insert('catalog_patient', [{ app_id: app, id: patient, received_at: at, request_id: 'seed', record: { id: patient, buddy_id_list: [] } }]);
  await analytics.insert('rejected', [
    {
      rejection_id: `rej-${app}-${user}`,
      kind: 'event',
      errors: [],
      payload: JSON.stringify({ u_id: user, e: 'bad' }),
      app_id: app,
      received_at: at,
      failed_at: at,
    },
  ]);
  await analytics.insert('dead_letters', [
    {
      dead_letter_id: `dl-${app}-${user}`,
      app_id: app,
      source_topic: 'events.core',
      source_key: `${app}:${user}`,
      payload: '{}',
      payload_encoding: 'utf8',
      failed_at: at,
    },
  ]);
  await analytics.insert('segment_members', [
    { app_id: app, segment_id: 's1', user_id: user, is_member: true, entered_at: at, written_at: at, seq: 1, state_version: 2 },
  ]);
  await analytics.insert('campaign_outcomes', [
    { app_id: app, campaign_id: 'c1', inv_id: 1, user_id: user, variant: 1, action_id: 7, outcome: 'requested', trigger: 'api', at },
  ]);
  await analytics.insert('actions_log', [
    { entry_id: `e-${app}-${user}`, app_id: app, user_id: user, inv_id: 1, action_id: 7, kind: 'created', at, created_at: at },
  ]);
  return { events: 3, catalog_user: 1, catalog_patient: 1, rejected: 1, dead_letters: 1, segment_members: 1, campaign_outcomes: 1, actions_log: 1 };
}

/** Every row of an app in the given tables, as text in a stable order: to show them unchanged byte for byte. */
export async function appSnapshot(analytics: Analytics, app: string, tables: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of tables) {
    const rows = await analytics.query(`SELECT * FROM ${t} WHERE app_id = {app:String}`, { app });
    out[t] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}
