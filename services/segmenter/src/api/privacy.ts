import type { Request, Router } from 'express';
import { ApiError, type KeyRing } from '@evp/core';
import { grantOf, jsonBody, requireKey, type RecordRead } from '@evp/http';
import { parseErasureBody, parseExportBody, type PrivacyService } from '../privacy';

/** 1,000 ids of 256 characters fit well under this. */
const PRIVACY_BODY_LIMIT = 512 * 1024;
const REQUEST_ID = /^[0-9a-f-]{36}$/;

function requestId(req: Request): string {
  const id = String(req.params.id);
  if (!REQUEST_ID.test(id)) throw new ApiError('not_found', { message: 'No such request.', path: 'params.id' });
  return id;
}

type Guarded = <T>(req: Request, op: () => Promise<T>) => Promise<T>;

/**
 * Erasure and export of a person's data (docs/privacy.md). API key only, the key's app only; a
 * request is answered 202 and carried out by the privacy processor.
 */
export function privacyRoutes(router: Router, keys: KeyRing, privacy: PrivacyService, guarded: Guarded, recordRead: RecordRead) {
  const api = requireKey(keys, 'api');
  const body = jsonBody(PRIVACY_BODY_LIMIT);
  const found = <T>(v: T | undefined): T => {
    if (v === undefined) throw new ApiError('not_found', { message: 'No such request for this app.', path: 'params.id' });
    return v;
  };
  router.post('/v1/privacy/erasures', api, body, async (req, res) => {
    const ids = parseErasureBody(req.body);
    const r = await guarded(req, () => privacy.createErasure(grantOf(req).appId, ids));
    res.status(202).json({ id: r.id, state: r.state });
  });
  router.get('/v1/privacy/erasures', api, async (req, res) => {
    res.status(200).json({ data: await guarded(req, () => privacy.list(grantOf(req).appId, 'erasure')) });
  });
  router.get('/v1/privacy/erasures/:id', api, async (req, res) => {
    const id = requestId(req);
    res.status(200).json(found(await guarded(req, () => privacy.get(grantOf(req).appId, 'erasure', id))));
  });
  router.post('/v1/privacy/exports', api, body, async (req, res) => {
    const target = parseExportBody(req.body);
    const r = await guarded(req, () => privacy.createExport(grantOf(req).appId, target));
    res.status(202).json({ id: r.id, state: r.state });
  });
  router.get('/v1/privacy/exports', api, async (req, res) => {
    res.status(200).json({ data: await guarded(req, () => privacy.list(grantOf(req).appId, 'export')) });
  });
  router.get('/v1/privacy/exports/:id', api, async (req, res) => {
    const id = requestId(req);
    const r = found(await guarded(req, () => privacy.get(grantOf(req).appId, 'export', id)));
    res.status(200).json(r);
  });
  router.get('/v1/privacy/exports/:id/data', api, async (req, res) => {
    const id = requestId(req);
    const { appId } = grantOf(req);
    const { request: r, person } = found(await guarded(req, () => privacy.exportOf(appId, id)));
    if (r.state !== 'completed')
      throw new ApiError('conflict', { message: `the export is ${r.state}: its data is ready once it is completed`, path: 'params.id' });
    // Recorded before the first byte: a log that cannot be written refuses the download (503 access_log_unavailable).
    await recordRead(req, { route: 'GET /v1/privacy/exports/{id}/data', person, rows: r.rows ?? null });
    res.status(200).type('application/x-ndjson');
    // Line by line, waiting when the client reads slowly: the export is never held whole.
    for await (const line of privacy.exportData(appId, id)) if (!res.write(line)) await new Promise((resolve) => res.once('drain', resolve));
    res.end();
  });
  router.get('/v1/privacy/suppressions', api, async (req, res) => {
    res.status(200).json({ data: await guarded(req, () => privacy.suppressions(grantOf(req).appId)) });
  });
  router.delete('/v1/privacy/suppressions/:user_id', api, async (req, res) => {
    const userId = String(req.params.user_id);
    const lifted = await guarded(req, () => privacy.liftSuppression(grantOf(req).appId, userId));
    if (!lifted) throw new ApiError('not_found', { message: 'This user is not suppressed in this app.', path: 'params.user_id' });
    res.status(204).end();
  });
}
