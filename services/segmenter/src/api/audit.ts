import type { Request, Router } from 'express';
import { ApiError, type KeyRing } from '@evp/core';
import { grantOf, requireKey, type AccessEntry, type AccessFilter, type AccessLog, type ChainVerdict } from '@evp/http';

const AUDIT_PAGE_DEFAULT = 100;
const AUDIT_PAGE_MAX = 1000;

/** The page GET /v1/audit/reads answers: newest first; `cursor` fetches the next (older) page. */
export interface AuditReadsAnswer {
  data: AccessEntry[];
  cursor?: string;
}

/** A time bound: epoch ms or an ISO 8601 instant. */
function instant(q: Record<string, unknown>, name: 'from' | 'to'): number | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  const ms = typeof raw !== 'string' ? NaN : /^[0-9]{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms)) throw new ApiError('invalid_request', { message: `${name} is epoch ms or an ISO 8601 instant`, path: `query.${name}` });
  return ms;
}

function text(q: Record<string, unknown>, name: 'key_id' | 'role' | 'route' | 'person'): string | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 256)
    throw new ApiError('invalid_request', { message: `${name} is 1–256 characters`, path: `query.${name}` });
  return raw;
}

function positive(q: Record<string, unknown>, name: 'limit' | 'cursor', max: number): number | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^[0-9]{1,16}$/.test(raw) || n < 1 || n > max) {
    throw new ApiError('invalid_request', {
      message: name === 'limit' ? `limit must be an integer from 1 to ${max}` : 'cursor must be the string a previous page returned',
      path: `query.${name}`,
    });
  }
  return n;
}

/** The filters of GET /v1/audit/reads, each checked, every bad one answered 400 with its path. */
function parseAuditQuery(q: Record<string, unknown>): AccessFilter {
  const f: AccessFilter = { limit: positive(q, 'limit', AUDIT_PAGE_MAX) ?? AUDIT_PAGE_DEFAULT };
  const from = instant(q, 'from');
  const to = instant(q, 'to');
  const keyId = text(q, 'key_id');
  const role = text(q, 'role');
  const route = text(q, 'route');
  const person = text(q, 'person');
  const before = positive(q, 'cursor', Number.MAX_SAFE_INTEGER);
  if (from !== undefined) f.from = from;
  if (to !== undefined) f.to = to;
  if (keyId !== undefined) f.keyId = keyId;
  if (role !== undefined) f.role = role;
  if (route !== undefined) f.route = route;
  if (person !== undefined) f.person = person;
  if (before !== undefined) f.before = before;
  return f;
}

/**
 * GET /v1/audit/reads and /v1/audit/verify (docs/privacy.md, "Access log"): the key's own app's
 * reads and whether its chain holds, API key only.
 * Listing the log is not itself logged: it shows who read, not the data read.
 */
export function auditRoutes(router: Router, keys: KeyRing, log: AccessLog, guarded: <T>(req: Request, op: () => Promise<T>) => Promise<T>): void {
  router.get('/v1/audit/reads', requireKey(keys, 'api'), async (req, res) => {
    const { appId } = grantOf(req);
    const filter = parseAuditQuery(req.query);
    const page = await guarded(req, () => log.list(appId, filter));
    const answer: AuditReadsAnswer = page.next === undefined ? { data: page.data } : { data: page.data, cursor: String(page.next) };
    res.status(200).json(answer);
  });
  // The chain walked from the first entry kept to the head: what `npm run audit:verify` says of this app.
  router.get('/v1/audit/verify', requireKey(keys, 'api'), async (req, res) => {
    const verdict: ChainVerdict = await guarded(req, () => log.verify(grantOf(req).appId));
    res.status(200).json(verdict);
  });
}
