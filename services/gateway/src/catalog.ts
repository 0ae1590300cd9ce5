import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '@evp/core';
import { CUSTOM_CATALOG_KIND_PATTERN, catalogKindNames, catalogKindOf, unknownCatalogKindMessage } from '@evp/schemas';

declare module 'express-serve-static-core' {
  interface Request {
    /** The kind a catalog upload's `:kind` names: a built-in kind (aliases resolved) or an app-defined name. */
    catalogKind?: string;
  }
}

/**
 * The kind a `:kind` path segment means. Kinds and their aliases (`user_chw`, and the older iOS
 * subjects `chw`, `chwsite`) live in one place, the schemas' catalog definitions, which the
 * validator resolves through too; any other lower-case name is a kind the app defines itself
 * (schemas/src/catalogs/custom.ts). Anything else is no kind: 404, before the body is read.
 */
export function kindOfPath(name: string): string {
  const of = catalogKindOf(name);
  if (of !== undefined) return of.kind;
  throw new ApiError('unknown_catalog_kind', {
    message: unknownCatalogKindMessage(name),
    path: 'path.kind',
    details: { kinds: catalogKindNames(), app_defined: CUSTOM_CATALOG_KIND_PATTERN.source },
  });
}

/** Resolves `:kind` (aliases included) before the body is read: a name that is no kind costs no upload. */
export function catalogKind(req: Request, _res: Response, next: NextFunction) {
  req.catalogKind = kindOfPath(String(req.params.kind));
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
  return countRecords(body, '$', maxRecords);
}

/** The records of an upload's array at `path`: at least one, at most `maxRecords`. */
function countRecords(records: readonly unknown[], path: string, maxRecords: number): number {
  if (records.length === 0) throw new ApiError('invalid_envelope', { message: 'The array holds no records.', path });
  if (records.length > maxRecords) {
    throw new ApiError('too_many_events', {
      message: `The request holds ${records.length} records; the limit is ${maxRecords}.`,
      path,
      details: { records: records.length, max_records: maxRecords },
    });
  }
  return records.length;
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
  return countRecords(data, '$.data', maxRecords);
}
