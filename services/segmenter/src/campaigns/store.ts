import { formatDateTime64, versionedTable, type VersionedTableDeps, type VersionedTableSpec } from '@evp/clickhouse';
import { DEFAULT_APP_SETTINGS, type CampaignAppSettings } from './app-settings';
import type { CampaignDocument } from './document';
import { documentSplit, sameSplit, splitHistory, type CampaignSource, type SplitChange, type StoredCampaign } from './source';
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
 * The history with `document`'s split from `at` appended, unless it is the document's split already
 * in force. Adaptive epochs are not the document's: an edit that leaves the split as it was keeps the
 * epoch in force, and one that changes it starts again from the document's weights.
 */
function withSplit(history: readonly SplitChange[], document: CampaignDocument, at: number): SplitChange[] {
  const split = documentSplit(document);
  const last = [...history].reverse().find((h) => h.adaptive === undefined);
  const same = last !== undefined && last.holdout === split.holdout && last.weights.join() === split.weights.join();
  return same ? [...history] : [...history, { from: at, ...split }];
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
  columns: ['name', 'document', 'state', 'splits'],
  toColumns: (c) => ({ name: c.name, document: JSON.stringify(c.document), state: c.state, splits: JSON.stringify(c.splits) }),
  fromColumns(row, { app_id, id }) {
    const document = JSON.parse(row.document as string) as CampaignDocument;
    const splits = JSON.parse((row.splits as string | undefined) ?? '[]') as SplitChange[];
    return { name: row.name as string, state: row.state as CampaignState, document, action_ids: actionIds(app_id, id, document), splits };
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
      campaigns.first(appId, (id, at) => ({
        name: document.name,
        state: 'draft',
        document,
        action_ids: actionIds(appId, id, document),
        splits: withSplit([], document, at),
      })),
    change(current, change) {
      const document = change.document ?? current.document;
      const at = now();
      return campaigns.next(
        current,
        {
          document,
          // A campaign saved before its table had the history (migration 018) starts it with its split then.
          splits: withSplit(splitHistory(current), document, at),
          name: document.name,
          action_ids: actionIds(current.app_id, current.id, document),
          state: change.state ?? current.state,
        },
        at,
      );
    },
    async appendSplit(campaign, split) {
      // The latest version, so that an edit saved since the worker read the campaign is kept; and
      // only if its last split is still the one the epoch was computed from. The allocation timer
      // runs on the lease's holder only, but a holder paused past its lease can come back with an
      // epoch another replica has appended since: this re-read keeps it from moving the weights
      // twice. Not a compare-and-set (ClickHouse has none): two appends in the same few
      // milliseconds both pass, and then write the same version n + 1, of which one row is kept.
      const latest = await campaigns.latest(campaign.app_id, campaign.id);
      if (!latest || !sameSplit(splitHistory(latest).at(-1), splitHistory(campaign).at(-1))) return false;
      await campaigns.next(latest, { splits: [...splitHistory(latest), split] }, now());
      return true;
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
