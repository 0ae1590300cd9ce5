import { MEMBERSHIP_FIELDS, membershipChangeSchema, readMembershipChange } from './membership';
import { RecordReadError } from './record-reader';

describe('segments.membership from MEMBERSHIP_FIELDS', () => {
  it('derives the Avro schema byte for byte as it was first registered (the registry keeps one version)', () => {
    expect(JSON.stringify(membershipChangeSchema)).toBe(
      '{"type":"record","name":"MembershipChange","namespace":"evp.segments","doc":"One change of the membership of a user in a segment","fields":[{"name":"app_id","type":"string"},{"name":"segment_id","type":"string"},{"name":"user_id","type":"string"},{"name":"change","type":{"type":"enum","name":"MembershipChangeKind","symbols":["entered","exited"]}},{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"},"doc":"the instant of the evaluation that saw the change"},{"name":"version","type":"int","doc":"the definition version evaluated"},{"name":"seq","type":"long","doc":"the n-th change of this (segment, user), from 1"}]}',
    );
  });

  it('reads a decoded change into exactly its fields, and names the field of one that is not a change', () => {
    const change = { app_id: 'a', segment_id: 's', user_id: 'u', change: 'entered', at: 1_700_000_000_000, version: 3, seq: 2 };
    expect(readMembershipChange({ ...change, extra: true })).toEqual(change);
    expect(Object.keys(readMembershipChange(change))).toEqual(MEMBERSHIP_FIELDS.map((f) => f.name));
    const problem = (v: unknown) => {
      try {
        readMembershipChange(v);
      } catch (err) {
        return err instanceof RecordReadError ? err.message : String(err);
      }
      return 'read';
    };
    expect([
      problem({ ...change, change: 'left' }),
      problem({ ...change, app_id: '' }),
      problem({ ...change, seq: 1.5 }),
      problem({ ...change, at: '2024-01-01' }),
      problem('x'),
    ]).toEqual([
      'change: left is not one of entered, exited',
      'app_id: expected a non-empty string',
      'seq: expected an integer, got 1.5',
      'at: expected an integer, got 2024-01-01',
      '$: expected a record',
    ]);
  });
});
