import { normalizeCatalog } from './catalog';

const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: 1_700_000_100_000, keyId: 'k-sdk' };

describe('normalizeCatalog', () => {
  it('turns a user record into the exact canonical catalog record', () => {
    const r = normalizeCatalog('user', [{ id: 'u-1', timezone: '+05:30', gender: 'female', tier: 'gold' }], ctx);
    expect(r).toEqual({
      accepted: [
        {
          record: {
            app_id: 'app-1',
            id: 'u-1',
            kind: 'user',
            received_at: 1_700_000_100_000,
            request_id: 'req-1',
            record: { id: 'u-1', timezone: '+05:30', gender: 'female' },
            extra: { tier: 'gold' },
          },
          warnings: [{ path: '$[0].tier', rule: 'unknown_property', message: 'tier is not part of UserCatalogRecord; kept as extra' }],
          index: 0,
        },
      ],
      rejected: [],
    });
  });

  it('one bad record never rejects its siblings; paths are $[i].field', () => {
    const r = normalizeCatalog(
      'site',
      [{ id: 's-1', name: 'A', type: 'clinic' }, { id: 's-2', name: 'B', type: 'hospital' }, null, 'x', { id: 's-5', name: 'E', type: 'community' }],
      ctx,
    );
    expect(r.accepted.map((a) => a.record.id)).toEqual(['s-1', 's-5']);
    expect(r.rejected).toEqual([
      {
        kind: 'schema_violation',
        reasons: [{ path: '$[1].type', rule: 'enum', message: 'expected one of pharmacy, clinic, community' }],
        payload: { id: 's-2', name: 'B', type: 'hospital' },
        event_count: 1,
        envelope_index: null,
        event_index: 1,
        event_name: null,
      },
      {
        kind: 'schema_violation',
        reasons: [{ path: '$[2]', rule: 'type', message: 'a site record must be an object' }],
        payload: null,
        event_count: 1,
        envelope_index: null,
        event_index: 2,
        event_name: null,
      },
      {
        kind: 'schema_violation',
        reasons: [{ path: '$[3]', rule: 'type', message: 'a site record must be an object' }],
        payload: 'x',
        event_count: 1,
        envelope_index: null,
        event_index: 3,
        event_name: null,
      },
    ]);
  });

  it('a body that is not an array is one envelope_violation', () => {
    const body = { id: 'u-1', timezone: 'UTC' };
    expect(normalizeCatalog('user', body, ctx)).toEqual({
      accepted: [],
      rejected: [
        {
          kind: 'envelope_violation',
          reasons: [{ path: '$', rule: 'type', message: 'a catalog submission must be a JSON array of user records' }],
          payload: body,
          event_count: 1,
          envelope_index: null,
          event_index: null,
          event_name: null,
        },
      ],
    });
  });

  it('a name that is no kind (no built-in one, no app-defined name) is a parse_violation standing for every record', () => {
    const r = normalizeCatalog('Vehicle', [{ id: 'v-1' }, { id: 'v-2' }], ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected).toEqual([
      {
        kind: 'parse_violation',
        reasons: [
          {
            path: 'headers.payload_kind',
            rule: 'unknown_catalog_kind',
            message: expect.stringContaining('catalog kind "Vehicle" is neither a built-in kind (user, site, hcw,'),
          },
        ],
        payload: [{ id: 'v-1' }, { id: 'v-2' }],
        event_count: 2,
        envelope_index: null,
        event_index: null,
        event_name: null,
      },
    ]);
  });

  it('accepts user_chw as hcw', () => {
    const r = normalizeCatalog('user_chw', [{ id: 'h-1', role: 'chw' }], ctx);
    expect(r.accepted.map((a) => [a.record.kind, a.record.record])).toEqual([['hcw', { id: 'h-1', role: 'chw' }]]);
  });

  it('an empty array is nothing accepted and nothing rejected', () => {
    expect(normalizeCatalog('drug', [], ctx)).toEqual({ accepted: [], rejected: [] });
  });

  it('an oversized record is a size_violation; its siblings pass', () => {
    const big = { id: 'd-1', name: 'x'.repeat(200) };
    const r = normalizeCatalog('drug', [big, { id: 'd-2', name: 'y' }], ctx, { maxEventChars: 100 });
    expect(r.accepted.map((a) => a.record.id)).toEqual(['d-2']);
    expect(r.rejected).toEqual([
      {
        kind: 'size_violation',
        reasons: [{ path: '$[0]', rule: 'max_size', message: expect.stringMatching(/limit is 100$/) }],
        payload: big,
        event_count: 1,
        envelope_index: null,
        event_index: 0,
        event_name: null,
      },
    ]);
  });

  it('an explicit id wins over the blood default', () => {
    const r = normalizeCatalog('blood', [{ id: 'own', blood_group: 'O-', blood_component: 'platelets' }], ctx);
    expect(r.accepted[0]!.record.id).toBe('own');
    expect(r.accepted[0]!.warnings).toEqual([]);
  });

  it('never throws on odd input', () => {
    for (const body of [undefined, null, 1, 'x', [[]], [undefined], [{ id: { a: 1 } }], [Object.create(null)]]) {
      const r = normalizeCatalog('hcw', body, ctx);
      expect(r.accepted.length + r.rejected.reduce((n, x) => n + x.event_count, 0)).toBeGreaterThanOrEqual(Array.isArray(body) ? body.length : 1);
    }
  });
});
