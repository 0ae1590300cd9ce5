import type { NextFunction, Request, Response } from 'express';
import { ApiError, CATALOG_KINDS, type CatalogKind } from '@evp/core';

declare module 'express-serve-static-core' {
  interface Request {
    catalogKind?: CatalogKind;
  }
}

/** Names SDKs use for a kind besides its canonical one (older SDKs call HCWs `user_chw`). */
export const CATALOG_ALIASES: Readonly<Record<string, CatalogKind>> = { user_chw: 'hcw' };

const KINDS = new Set<string>(CATALOG_KINDS);

export function resolveCatalogKind(name: string): CatalogKind {
  if (KINDS.has(name)) return name as CatalogKind;
  // Own properties only: `constructor`, `__proto__` or `toString` must not resolve through the prototype.
  if (Object.hasOwn(CATALOG_ALIASES, name)) return CATALOG_ALIASES[name] as CatalogKind;
  throw new ApiError('unknown_catalog_kind', {
    message: `There is no catalog kind '${name}'.`,
    path: 'path.kind',
    details: { kinds: [...CATALOG_KINDS, ...Object.keys(CATALOG_ALIASES)] },
  });
}

/** Resolves `:kind` (aliases included) before the body is read: an unknown kind costs no upload. */
export function catalogKind(req: Request, _res: Response, next: NextFunction) {
  req.catalogKind = resolveCatalogKind(String(req.params.kind));
  next();
}

/**
 * A catalog submission is a non-empty JSON array of records. The records themselves are the
 * validator's business (one bad record is rejected downstream, not here); the gateway only counts.
 */
export function countCatalogRecords(body: unknown, maxRecords: number): number {
  if (!Array.isArray(body)) {
    throw new ApiError('invalid_envelope', { message: 'A catalog submission must be a JSON array of records.', path: '$' });
  }
  if (body.length === 0) throw new ApiError('invalid_envelope', { message: 'The array holds no records.', path: '$' });
  if (body.length > maxRecords) {
    throw new ApiError('too_many_events', {
      message: `The request holds ${body.length} records; the limit is ${maxRecords}.`,
      path: '$',
      details: { records: body.length, max_records: maxRecords },
    });
  }
  return body.length;
}

/**
 * The Kenkai catalog upload (`POST /v1/ingest/dimensions`, KenkaiSDKCore CatalogAPIHandler.swift):
 * `{"data": [{"id", "type", "kv"}]}` with records of any kinds. As for catalog submissions the
 * gateway checks only the wrapper and counts; each record (its kind included) is the validator's
 * business, so one record of an unknown kind never fails its siblings.
 */
export function countDimensionRecords(body: unknown, maxRecords: number): number {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_envelope', { message: 'A dimensions upload must be an object {"data": [records]}.', path: '$' });
  }
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) throw new ApiError('invalid_envelope', { message: 'data must be a JSON array of records.', path: '$.data' });
  if (data.length === 0) throw new ApiError('invalid_envelope', { message: 'The array holds no records.', path: '$.data' });
  if (data.length > maxRecords) {
    throw new ApiError('too_many_events', {
      message: `The request holds ${data.length} records; the limit is ${maxRecords}.`,
      path: '$.data',
      details: { records: data.length, max_records: maxRecords },
    });
  }
  return data.length;
}
