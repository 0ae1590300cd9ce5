import { randomUUID } from 'node:crypto';
import { chToRfc3339, formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
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

interface CampaignRow {
  app_id: string;
  campaign_id: string;
  version: number;
  name: string;
  document: string;
  state: CampaignState;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'app_id, campaign_id, version, name, document, state, created_at, updated_at';

/** The action ids of a campaign's variants, 1 … N (a campaign without variants has one). */
const actionIds = (appId: string, id: string, document: CampaignDocument): number[] =>
  Array.from({ length: document.variants?.length ?? 1 }, (_, i) => variantActionId(appId, id, i + 1));

function toCampaign(r: CampaignRow): Campaign {
  const document = JSON.parse(r.document) as CampaignDocument;
  return {
    app_id: r.app_id,
    id: r.campaign_id,
    version: Number(r.version),
    name: r.name,
    state: r.state,
    document,
    action_ids: actionIds(r.app_id, r.campaign_id, document),
    created_at: Date.parse(chToRfc3339(r.created_at)),
    updated_at: Date.parse(chToRfc3339(r.updated_at)),
  };
}

/**
 * Campaigns in ClickHouse (migration 012), like segment definitions: every save inserts the whole
 * campaign with the next version and FINAL reads the latest. There is no compare-and-set: two
 * changes of one campaign at the same moment can both write version n + 1, and the row inserted
 * last is kept (docs/campaigns.md, "API").
 */
export function createCampaignStore(deps: { analytics: Analytics; now?: () => number; newId?: () => string }): CampaignStore {
  const { analytics } = deps;
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomUUID;

  const write = (c: Campaign) =>
    analytics.insert('campaigns', [
      {
        app_id: c.app_id,
        campaign_id: c.id,
        version: c.version,
        name: c.name,
        document: JSON.stringify(c.document),
        state: c.state,
        created_at: formatDateTime64(c.created_at),
        updated_at: formatDateTime64(c.updated_at),
      },
    ]);

  const select = async (where: string, params: Record<string, unknown>) =>
    (await analytics.query<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns FINAL WHERE ${where} ORDER BY app_id, created_at, campaign_id`, params)).map(
      toCampaign,
    );

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
    active: (appId) => (appId === undefined ? select(`state = 'active'`, {}) : select(`app_id = {app:String} AND state = 'active'`, { app: appId })),
    get: async (appId, id) => (await select('app_id = {app:String} AND campaign_id = {id:String}', { app: appId, id }))[0],
    list: (appId) => select('app_id = {app:String}', { app: appId }),
    async create(appId, document) {
      const at = now();
      const id = newId();
      const saved: Campaign = {
        app_id: appId,
        id,
        version: 1,
        name: document.name,
        state: 'draft',
        document,
        action_ids: actionIds(appId, id, document),
        created_at: at,
        updated_at: at,
      };
      await write(saved);
      return saved;
    },
    async change(current, change) {
      const document = change.document ?? current.document;
      const saved: Campaign = {
        ...current,
        document,
        name: document.name,
        action_ids: actionIds(current.app_id, current.id, document),
        state: change.state ?? current.state,
        version: current.version + 1,
        updated_at: now(),
      };
      await write(saved);
      return saved;
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
