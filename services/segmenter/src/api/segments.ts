import type { Request, Router } from 'express';
import { ApiError, type Analytics, type KeyRing } from '@evp/core';
import { grantOf, jsonBody, requireKey, type RecordRead } from '@evp/http';
import type { Segment, SegmentsService } from '../segments';
import { memberCounts, membershipHistory } from '../segments';
import { HOURS_DEFAULT, HOURS_MAX, spanParam } from './health';
import { viewTimes } from './versioned-view';
import type { DataAnswer, SegmentWithCount } from './answers';

/** A definition is small; a body this large is a mistake, not a segment. */
export const SEGMENT_BODY_LIMIT = 256 * 1024;
export const MEMBERS_PAGE_DEFAULT = 100;
export const MEMBERS_PAGE_MAX = 1_000;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

function param(raw: unknown, name: string): string {
  const v = String(raw);
  if (!ID.test(v)) throw new ApiError('invalid_request', { message: `${name} is 1–128 of A-Z a-z 0-9 . _ : -`, path: `params.${name}` });
  return v;
}

function limitOf(raw: unknown): number {
  if (raw === undefined) return MEMBERS_PAGE_DEFAULT;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^[0-9]{1,5}$/.test(raw) || n < 1 || n > MEMBERS_PAGE_MAX) {
    throw new ApiError('invalid_request', { message: `limit must be an integer from 1 to ${MEMBERS_PAGE_MAX}`, path: 'query.limit' });
  }
  return n;
}

/** The segment as the API shows it (the app is the key's, so it is not repeated). */
export const segmentView = (s: Segment) => ({
  id: s.id,
  name: s.name,
  version: s.version,
  definition: s.definition,
  ...viewTimes(s),
});

/**
 * The segments API (docs/segments.md#api), API key only: a segment shows who an app's users are,
 * which an SDK key (public, in every app binary) must never read.
 */
export function segmentRoutes(
  router: Router,
  keys: KeyRing,
  segments: SegmentsService,
  analytics: Analytics,
  guarded: <T>(req: Request, op: () => Promise<T>) => Promise<T>,
  recordRead: RecordRead,
): void {
  const api = requireKey(keys, 'api');
  const body = jsonBody(SEGMENT_BODY_LIMIT);
  router.post('/v1/segments/preview', api, body, async (req, res) => {
    res.status(200).json(await guarded(req, () => segments.preview(grantOf(req).appId, req.body)));
  });
  router.post('/v1/segments', api, body, async (req, res) => {
    res.status(201).json(segmentView(await guarded(req, () => segments.create(grantOf(req).appId, req.body))));
  });
  router.get('/v1/segments', api, async (req, res) => {
    const counts = req.query.member_counts;
    if (counts !== undefined && counts !== 'true' && counts !== 'false')
      throw new ApiError('invalid_request', { message: 'member_counts is true or false', path: 'query.member_counts' });
    const appId = grantOf(req).appId;
    const list = (await guarded(req, () => segments.list(appId))).map(segmentView);
    if (counts !== 'true') return void res.status(200).json({ data: list });
    // The console's list: each segment's current members, one grouped query for all of them.
    const members = await guarded(req, () => memberCounts(analytics, appId));
    const answer: DataAnswer<SegmentWithCount> = { data: list.map((s) => ({ ...s, member_count: members.get(s.id) ?? 0 })) };
    res.status(200).json(answer);
  });
  router.get('/v1/segments/:segment_id', api, async (req, res) => {
    const id = param(req.params.segment_id, 'segment_id');
    res.status(200).json(segmentView(await guarded(req, () => segments.get(grantOf(req).appId, id))));
  });
  router.put('/v1/segments/:segment_id', api, body, async (req, res) => {
    const id = param(req.params.segment_id, 'segment_id');
    res.status(200).json(segmentView(await guarded(req, () => segments.update(grantOf(req).appId, id, req.body))));
  });
  router.delete('/v1/segments/:segment_id', api, async (req, res) => {
    const id = param(req.params.segment_id, 'segment_id');
    await guarded(req, () => segments.remove(grantOf(req).appId, id));
    res.status(204).end();
  });
  router.get('/v1/segments/:segment_id/members', api, async (req, res) => {
    const id = param(req.params.segment_id, 'segment_id');
    const cursor = req.query.cursor;
    if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > 1024)) {
      throw new ApiError('invalid_request', { message: 'cursor must be the string a previous page returned', path: 'query.cursor' });
    }
    const limit = limitOf(req.query.limit);
    const page = await guarded(req, () => segments.members(grantOf(req).appId, id, { limit, ...(cursor ? { cursor } : {}) }));
    await recordRead(req, { route: 'GET /v1/segments/{segment_id}/members', rows: page.data.length });
    res.status(200).json(page);
  });
  router.get('/v1/segments/:segment_id/history', api, async (req, res) => {
    const id = param(req.params.segment_id, 'segment_id');
    const hours = spanParam(req.query, 'hours', HOURS_DEFAULT, HOURS_MAX);
    const appId = grantOf(req).appId;
    await guarded(req, () => segments.get(appId, id));
    res.status(200).json({ data: await guarded(req, () => membershipHistory(analytics, appId, id, hours, Date.now())) });
  });
  router.get('/v1/users/:user_id/segments', api, async (req, res) => {
    const userId = String(req.params.user_id);
    if (userId.length === 0 || userId.length > 256) throw new ApiError('invalid_request', { message: 'user_id is 1–256 characters', path: 'params.user_id' });
    const data = await guarded(req, () => segments.segmentsOf(grantOf(req).appId, userId));
    await recordRead(req, { route: 'GET /v1/users/{user_id}/segments', person: userId, rows: data.length });
    res.status(200).json({ data });
  });
}
