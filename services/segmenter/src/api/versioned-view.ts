import type { Versioned } from '@evp/clickhouse';

/** A versioned item's times as the API shows them: RFC 3339 UTC with milliseconds (the store keeps epoch ms). */
export const viewTimes = (v: Pick<Versioned, 'created_at' | 'updated_at'>) => ({
  created_at: new Date(v.created_at).toISOString(),
  updated_at: new Date(v.updated_at).toISOString(),
});
