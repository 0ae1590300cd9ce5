import { formatDateTime64, versionedTable, type VersionedTableDeps, type VersionedTableSpec } from '@evp/clickhouse';
import { DEFAULT_APP_SETTINGS, type CampaignAppSettings } from './app-settings';
import type { CampaignDocument } from './document';
import type { CampaignSource, StoredCampaign } from './source';
import { variantActionId } from './ids';
import type { CampaignState } from './states';

/** A saved campaign's latest version, as the API shows it; the worker and the trigger producers read it as a StoredCampaign. */
export interface Campaign extends StoredCampaign {
  /** The document's name (a column, for lists). */
  name: string;
  /** Epoch ms of the latest change. */
  updated_at: number;
}

/**
 * Where campaigns are kept (ClickHouse tables `campaigns` and `campaign_settings`); every call is
 * scoped to one app. The campaign worker reads it through its port (source.ts, CampaignSource).
 */
export interface CampaignStore extends CampaignSource {
  get(appId: string, id: string): Promise<Campaign | undefined>;
  active(appId?: string): Promise<Campaign[]>;
  /** Every campaign of the app, by creation. */
  list(appId: string): Promise<Campaign[]>;
  /** Saves a new draft, version 1. */
  create(appId: string, document: CampaignDocument): Promise<Campaign>;
  /** Saves `current` changed by `change` as version + 1 and returns it. */
  change(current: Campaign, change: { document?: CampaignDocument; state?: CampaignState }): Promise<Campaign>;
  putSettings(appId: string, settings: CampaignAppSettings): Promise<CampaignAppSettings>;
}

/** The action ids of a campaign's variants, 1 … N (a campaign without variants has one). */
const actionIds = (appId: string, id: string, document: CampaignDocument): number[] =>
  Array.from({ length: document.variants?.length ?? 1 }, (_, i) => variantActionId(appId, id, i + 1));

const CAMPAIGNS: VersionedTableSpec<Campaign> = {
  table: 'campaigns',
  idColumn: 'campaign_id',
  columns: ['name', 'document', 'state'],
  toColumns: (c) => ({ name: c.name, document: JSON.stringify(c.document), state: c.state }),
  fromColumns(row, { app_id, id }) {
    const document = JSON.parse(row.document as string) as CampaignDocument;
    return { name: row.name as string, state: row.state as CampaignState, document, action_ids: actionIds(app_id, id, document) };
  },
};

/**
 * Campaigns in ClickHouse (migration 012), kept as versions like segment definitions (@evp/clickhouse,
 * versionedTable): there is no compare-and-set, so two changes of one campaign at the same moment can
 * both write version n + 1, and the row inserted last is kept (docs/campaigns.md, "API").
 */
export function createCampaignStore(deps: VersionedTableDeps): CampaignStore {
  const { analytics } = deps;
  const now = deps.now ?? Date.now;
  const campaigns = versionedTable(deps, CAMPAIGNS);

  async function settingsVersion(appId: string): Promise<{ version: number; settings: CampaignAppSettings }> {
    const [row] = await analytics.query<{ version: number; max_per_user_per_day: number | null }>(
      'SELECT version, max_per_user_per_day FROM campaign_settings FINAL WHERE app_id = {app:String}',
      { app: appId },
    );
    if (!row) return { version: 0, settings: { ...DEFAULT_APP_SETTINGS } };
    const max = row.max_per_user_per_day;
    return { version: Number(row.version), settings: { max_per_user_per_day: max === null ? null : Number(max) } };
  }

  return {
    active: (appId) =>
      appId === undefined ? campaigns.select(`state = 'active'`, {}) : campaigns.select(`app_id = {app:String} AND state = 'active'`, { app: appId }),
    get: (appId, id) => campaigns.latest(appId, id),
    list: (appId) => campaigns.select('app_id = {app:String}', { app: appId }),
    create: (appId, document) =>
      campaigns.first(appId, (id) => ({ name: document.name, state: 'draft', document, action_ids: actionIds(appId, id, document) })),
    change(current, change) {
      const document = change.document ?? current.document;
      return campaigns.next(current, {
        document,
        name: document.name,
        action_ids: actionIds(current.app_id, current.id, document),
        state: change.state ?? current.state,
      });
    },
    settings: async (appId) => (await settingsVersion(appId)).settings,
    async putSettings(appId, settings) {
      const { version } = await settingsVersion(appId);
      await analytics.insert('campaign_settings', [
        { app_id: appId, version: version + 1, max_per_user_per_day: settings.max_per_user_per_day, updated_at: formatDateTime64(now()) },
      ]);
      return settings;
    },
  };
}
