import type { Analytics } from '@evp/core';

/**
 * The demo shop's drugs: drug catalog records (spec 2.4) seeded through the gateway on start when the
 * app has none, so the shop, the campaign template (`catalog.drug["D-1"].name`) and the inspector
 * read the same records. The catalog has no price: the shop's prices are its own (below).
 */
export const DEMO_DRUGS = [
  { id: 'D-1', name: 'Amoxicillin', drug_form: 'capsule', drug_strength: '500 mg', otc_or_ethical: 'ethical', active_ingredients: ['amoxicillin'] },
  { id: 'D-2', name: 'Paracetamol', drug_form: 'tablet', drug_strength: '500 mg', otc_or_ethical: 'otc', active_ingredients: ['paracetamol'] },
  { id: 'D-3', name: 'Ibuprofen', drug_form: 'tablet', drug_strength: '200 mg', otc_or_ethical: 'otc', active_ingredients: ['ibuprofen'] },
  {
    id: 'D-4',
    name: 'Oral rehydration salts',
    drug_form: 'powder',
    drug_strength: '20.5 g',
    otc_or_ethical: 'otc',
    active_ingredients: ['sodium chloride', 'glucose'],
  },
] as const;

/** Prices in KES, by drug id; a drug the shop does not know costs DEFAULT_PRICE. */
const PRICES: Record<string, number> = { 'D-1': 450, 'D-2': 120, 'D-3': 180, 'D-4': 60 };
const DEFAULT_PRICE = 100;

export interface ShopDrug {
  id: string;
  name: string;
  form: string;
  strength: string;
  price: number;
}

/** The app's drug catalog (latest version of each record), as the shop lists it. */
export async function shopDrugs(analytics: Analytics, appId: string): Promise<ShopDrug[]> {
  const rows = await analytics.query<{ id: string; name: string; form: string; strength: string }>(
    `SELECT id, record.name::String AS name, record.drug_form::String AS form, record.drug_strength::String AS strength
     FROM catalog_drug FINAL WHERE app_id = {app:String} ORDER BY id LIMIT 100`,
    { app: appId },
  );
  return rows.map((r) => ({ ...r, price: PRICES[r.id] ?? DEFAULT_PRICE }));
}

/**
 * Seeds DEMO_DRUGS through the public ingest route (SDK key) when the app has no drug yet; true when
 * it seeded. Through the gateway, not into the table: the records take the path every app's do.
 */
export async function seedDemoDrugs(deps: { analytics: Analytics; appId: string; baseUrl: string; sdkKey: string }): Promise<boolean> {
  const [row] = await deps.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM catalog_drug WHERE app_id = {app:String}', { app: deps.appId });
  if (row?.n !== '0') return false;
  const res = await fetch(`${deps.baseUrl}/v1/ingest/catalog/drug`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${deps.sdkKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(DEMO_DRUGS),
  });
  if (res.status !== 200) throw new Error(`seeding the demo's drugs answered ${res.status}: ${await res.text()}`);
  return true;
}
