import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, errorCodes } from './error-codes';

describe('error code registry', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\|/gm)].map((m) => [m[1], Number(m[2])]);

  it('documents every code with its status, and nothing else', () => {
    const registry = Object.entries(errorCodes).map(([code, { status }]) => [code, status]);
    expect(documented.sort()).toEqual(registry.sort());
    expect(registry).toHaveLength(36);
  });

  it('builds the one error body shape', () => {
    const err = new ApiError('invalid_request', { message: 'type is required', path: '$.type' });
    expect(err.status).toBe(400);
    expect(err.body('r-1')).toEqual({ error: { code: 'invalid_request', message: 'type is required', path: '$.type', request_id: 'r-1' } });
  });
});
