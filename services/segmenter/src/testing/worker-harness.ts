import type { Bus } from '@evp/core';
import {
  type CampaignAction,
  type CampaignSettings,
  type CampaignSource,
  type CampaignState,
  type SplitChange,
  type StoredCampaign,
  type TemplateEngine,
  sameSplit,
  splitHistory,
  validateCampaign,
  variantActionId,
} from '../campaigns';

/**
 * Helpers of the campaign worker's tests (imported by tests only; this module imports no adapter):
 * campaigns kept in memory behind the CampaignSource port, validated as the API would save them,
 * and the actions read back from `actions.requested`.
 */
export class MemoryCampaigns implements CampaignSource {
  readonly #campaigns = new Map<string, StoredCampaign>();
  readonly #settings = new Map<string, CampaignSettings>();

  constructor(private readonly templates: TemplateEngine) {}

  /** Validates `json` (every segment id exists) and saves it as `state`; throws on a problem. */
  save(appId: string, id: string, json: unknown, opts: { state?: CampaignState; createdAt?: number } = {}): StoredCampaign {
    const r = validateCampaign(json, { segmentExists: () => true, templates: this.templates });
    if (!r.ok) throw new Error(`invalid campaign: ${JSON.stringify(r.reasons)}`);
    const variants = r.value.variants?.length ?? 1;
    const c: StoredCampaign = {
      app_id: appId,
      id,
      version: (this.#campaigns.get(`${appId}:${id}`)?.version ?? 0) + 1,
      state: opts.state ?? 'active',
      document: r.value,
      action_ids: Array.from({ length: variants }, (_, i) => variantActionId(appId, id, i + 1)),
      created_at: opts.createdAt ?? 0,
      splits: [],
    };
    this.#campaigns.set(`${appId}:${id}`, c);
    return c;
  }

  setSettings(appId: string, settings: CampaignSettings): void {
    this.#settings.set(appId, settings);
  }

  async active(appId?: string): Promise<StoredCampaign[]> {
    return [...this.#campaigns.values()].filter((c) => c.state === 'active' && (appId === undefined || c.app_id === appId));
  }

  async get(appId: string, id: string): Promise<StoredCampaign | undefined> {
    return this.#campaigns.get(`${appId}:${id}`);
  }

  async settings(appId: string): Promise<CampaignSettings> {
    return this.#settings.get(appId) ?? { max_per_user_per_day: null };
  }

  /** As the store's: only onto the split history `campaign` was read with. */
  async appendSplit(campaign: StoredCampaign, split: SplitChange): Promise<boolean> {
    const c = this.#campaigns.get(`${campaign.app_id}:${campaign.id}`);
    if (!c || !sameSplit(splitHistory(c).at(-1), splitHistory(campaign).at(-1))) return false;
    this.#campaigns.set(`${c.app_id}:${c.id}`, { ...c, version: c.version + 1, splits: [...splitHistory(c), split] });
    return true;
  }
}

export interface RequestedMessage {
  app_id: string;
  source?: string;
  actions: CampaignAction[];
}

/** Every `actions.requested` message of `appId` on the topic, in log order per partition. */
export async function readRequested(bus: Bus, topic: string, appId: string): Promise<RequestedMessage[]> {
  const out: RequestedMessage[] = [];
  await bus.scan(topic, 0, (m) => {
    const v = JSON.parse(m.value.toString('utf8')) as RequestedMessage;
    if (v.app_id === appId) out.push(v);
  });
  return out;
}
