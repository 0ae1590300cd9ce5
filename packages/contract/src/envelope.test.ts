import { catalogKindOfPayload, catalogPayloadKind } from './vocabulary';
import { envelopeKey, envelopeUserId, isEarlierEnvelope, looksFlat } from './envelope';

describe('envelope rules', () => {
  it('take the user from id, else u_id, else none', () => {
    expect(envelopeUserId({ id: 'u1', u_id: 'u2' })).toBe('u1');
    expect(envelopeUserId({ id: 5, u_id: 'u2' })).toBe('u2');
    expect(envelopeUserId({ u_id: 'u2' })).toBe('u2');
    expect(envelopeUserId({ data: [] })).toBe('');
    expect(envelopeKey('app-1', 'u1')).toBe('app-1:u1');
  });

  it('tell the earlier form by its keys', () => {
    expect([{ u_id: 'x' }, { d_info: {} }, { app_info: {} }, { id: 'x' }].map(isEarlierEnvelope)).toEqual([true, true, true, false]);
  });

  it('tell the flat form: a data array, no envelope key, a log naming its user', () => {
    expect(looksFlat({ data: [{ u_id: 'u' }] })).toBe(true);
    expect(looksFlat({ data: [] })).toBe(false);
    expect(looksFlat([{ u_id: 'u' }])).toBe(false);
    for (const k of ['id', 'u_id', 's_id', 'tz', 'internal', 'd_info', 'app_info', 'sdk']) expect(looksFlat({ [k]: 'x', data: [{ u_id: 'u' }] })).toBe(false);
  });

  it('name catalog payloads by the kind as sent', () => {
    expect(catalogPayloadKind('chwsite')).toBe('catalog:chwsite');
    expect(catalogKindOfPayload('catalog:user')).toBe('user');
    expect(catalogKindOfPayload('catalog:')).toBe('');
    expect(catalogKindOfPayload('log')).toBeUndefined();
  });
});
