import { ACTION_LOG_FIELDS, actionLogEntrySchema, readActionLogEntry } from './action-log';
import { RecordReadError } from './record-reader';

describe('actions.log from ACTION_LOG_FIELDS', () => {
  it('derives the Avro schema byte for byte as it was first registered (the registry keeps one version)', () => {
    expect(JSON.stringify(actionLogEntrySchema)).toBe(
      `{"type":"record","name":"ActionLogEntry","namespace":"evp.actions","doc":"One step of an action of the action store: created, delivered (first pull), withdrawn (block), expired undelivered, or capped (refused by a frequency cap)","fields":[{"name":"entry_id","type":"string"},{"name":"kind","type":"string","doc":"created, delivered, withdrawn, expired, capped"},{"name":"app_id","type":"string"},{"name":"user_id","type":"string"},{"name":"inv_id","type":"long"},{"name":"action_id","type":"long"},{"name":"at","type":"long","doc":"epoch ms; for expired: the expiry instant"},{"name":"created_at","type":"long","doc":"epoch ms"},{"name":"type","type":"string"},{"name":"render_method","type":"string"},{"name":"delivery_mode","type":"string"},{"name":"expired_at","type":["null","long"],"default":null,"doc":"epoch ms; null = never"},{"name":"tags","type":{"type":"array","items":"string"},"doc":"created and capped"},{"name":"attr","type":{"type":"map","values":"string"},"doc":"created and capped"},{"name":"source","type":"string","doc":"created and capped: api, actions.requested or the message's source"},{"name":"reason","type":"string","default":"","doc":"capped only: campaign_cap or app_cap"},{"name":"available_at","type":["null","long"],"default":null,"doc":"created and capped: epoch ms before which no pull returns it; null = at creation"}]}`,
    );
  });

  it('reads a decoded entry into exactly its fields; one written before reason existed gets its default', () => {
    const entry = {
      entry_id: 'e1',
      kind: 'created',
      app_id: 'a',
      user_id: 'u',
      inv_id: 7,
      action_id: 9,
      at: 1,
      created_at: 1,
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      expired_at: null,
      tags: ['t'],
      attr: { k: 'v' },
      source: 'api',
      reason: '',
      available_at: null,
    };
    expect(readActionLogEntry(entry)).toEqual(entry);
    expect(Object.keys(readActionLogEntry(entry))).toEqual(ACTION_LOG_FIELDS.map((f) => f.name));
    const { reason: _reason, available_at: _available, ...older } = entry;
    expect(readActionLogEntry(older)).toEqual(entry);
    const problem = (v: unknown) => {
      try {
        readActionLogEntry(v);
      } catch (err) {
        return err instanceof RecordReadError ? err.message : String(err);
      }
      return 'read';
    };
    expect([problem({ ...entry, kind: 'shown' }), problem({ ...entry, tags: [1] }), problem({ ...entry, attr: { k: 1 } })]).toEqual([
      'kind: shown is not one of created, delivered, withdrawn, expired, capped',
      'tags: expected a list of strings',
      'attr: expected a map of strings',
    ]);
  });
});
