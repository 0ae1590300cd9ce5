import { closedObject, jsonResponse, keyed, nullable, type OpenApiPaths } from '@evp/http';

/** GET /v1/audit/reads and /v1/audit/verify (audit.ts; docs/privacy.md, "Access log"). */

const query = (name: string, description: string, schema: object = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

export function auditPaths(internalError: object, unavailable: object): OpenApiPaths {
  const key = keyed('api');
  return {
    '/v1/audit/reads': {
      get: {
        operationId: 'listAuditReads',
        summary: 'The app’s access log: who read what, newest first',
        description:
          'Every recorded read of the API key’s own app (SQL statements, inspector, request verdicts, segment members, a user’s segments, bulk and generator pulls), hash-chained per app. One call scans at most 5,000 entries; `cursor` continues.',
        security: key.security,
        parameters: [
          query('from', 'Reads at or after this instant: epoch ms or ISO 8601.'),
          query('to', 'Reads before this instant: epoch ms or ISO 8601.'),
          query('key_id', 'Only this key’s reads.'),
          query('role', 'Only reads by keys of this role (`api`, `analyst`, …).'),
          query('route', 'Only this route, as recorded (`SQL`, `GET /v1/inspect/events`, …).'),
          query('person', 'Only reads about this person (user id).'),
          query('cursor', 'The `cursor` of the previous page.'),
          query('limit', 'Entries per page, 1–1000 (default 100).', { type: 'integer', minimum: 1, maximum: 1000 }),
        ],
        responses: {
          '200': jsonResponse(
            'One page of entries.',
            closedObject(['data'], { data: { type: 'array', items: { $ref: '#/components/schemas/AccessEntry' } }, cursor: { type: 'string' } }),
          ),
          ...key.responses,
          '500': internalError,
          '503': unavailable,
        },
      },
    },
    '/v1/audit/verify': {
      get: {
        operationId: 'verifyAuditChain',
        summary: 'Whether the app’s access log chain holds (what `npm run audit:verify` says of it)',
        description: 'Walks the key’s own app’s entries from the first kept to the head: every hash, every link, no gap, the head agreeing.',
        security: key.security,
        responses: {
          '200': jsonResponse('The verdict: how many entries hold together, or the first broken link.', {
            oneOf: [
              closedObject(['ok', 'entries'], {
                ok: { const: true },
                entries: { type: 'integer', minimum: 0 },
                head: closedObject(['seq', 'hash'], { seq: { type: 'integer' }, hash: { type: 'string' } }),
              }),
              closedObject(['ok', 'seq', 'reason', 'entries'], {
                ok: { const: false },
                seq: { type: 'integer', description: 'The first entry that does not hold.' },
                reason: { enum: ['hash_mismatch', 'link_mismatch', 'missing_entry', 'head_mismatch'] },
                entries: { type: 'integer', minimum: 0 },
              }),
            ],
          }),
          ...key.responses,
          '500': internalError,
          '503': unavailable,
        },
      },
    },
  };
}

const num = (description: string) => nullable('number', { description });
const str = (description: string) => nullable('string', { description });

export const auditSchemas = {
  AccessEntry: closedObject(
    ['seq', 'at', 'app_id', 'key_id', 'role', 'route', 'person', 'rows', 'bytes', 'elapsed_ms', 'statement_hash', 'statement', 'prev_hash', 'hash'],
    {
      seq: { type: 'integer', description: '1, 2, 3 … per app without gaps.' },
      at: { type: 'integer', description: 'Epoch ms of the append.' },
      app_id: { type: 'string' },
      key_id: { type: 'string' },
      role: { type: 'string' },
      route: { type: 'string' },
      person: str('The person read, when the route is about one person.'),
      rows: num('Rows answered (SQL: chdb’s rows figure).'),
      bytes: num('Bytes answered (SQL).'),
      elapsed_ms: num('Time the statement took (SQL).'),
      statement_hash: str('SHA-256 hex of the whole statement (SQL).'),
      statement: str('The statement, cut at 8,192 characters (SQL).'),
      prev_hash: { type: 'string', description: 'The hash of the app’s previous entry (64 zeros for seq 1).' },
      hash: { type: 'string', description: 'SHA-256 hex of the JSON array of the fields above in this order, prev_hash included.' },
    },
  ),
};
