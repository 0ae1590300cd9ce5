import { DEFAULT_PRIVACY_TABLE, resolvePrivacy, type AppPrivacy, type BusMessage } from '@evp/core';
import { processRawMessage } from '../process-raw';
import { catalogDefs, eventDefs, privacyLeaves } from '@evp/schemas';
import { applyCatalogPrivacy, applyEventPrivacy } from './apply';

/** A current-form upload of one event, as the gateway writes it to ingest.raw. */
const upload = (name: string, ctx: Record<string, unknown>, headers: Record<string, string> = {}): BusMessage => ({
  topic: 'ingest.raw',
  partition: 0,
  offset: '1',
  key: 'app-1:u-1',
  timestamp: 1,
  headers: { app_id: 'app-1', request_id: 'req-1', received_at: '1700000100000', key_id: 'k', ...headers },
  value: Buffer.from(
    JSON.stringify(
      headers.payload_kind?.startsWith('catalog:')
        ? ctx
        : {
            id: 'u-1',
            tz: '+00:00',
            internal: { s_id: 'u-1_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
            data: [{ time: '2023-11-14 22:13:20.000', name, property: 'x', ctx: { __ol: true, ...ctx } }],
          },
    ),
  ),
});

const encounter = {
  patient_id: 'PAT-0042',
  site_id: 's-1',
  action: 'done',
  category: 'facility',
  type: 'screening',
  sub_type: 'hiv',
  encounter_summary: { id: 'enc-1', hcw_id_list: ['hcw-1', 'hcw-2'], remarks: 'patient said …', mood: 'calm' },
};

// Golden values (see packages/core/src/privacy/pseudonym.test.ts for the openssl command).
const KEY_V1 = { version: 1, secret: 'demo-app pseudonym key v1, 32 bytes!!' };
const KEY_V2 = { version: 2, secret: 'demo-app pseudonym key v2, 32 bytes!!' };
const PAT_V1 = 'p1:JBzJmddArzd_3Jmbb6r8bw';
const PAT_V2 = 'p2:qbISYRNCd_-PmYAaNHc6iA';

function accepted(policy: AppPrivacy, name = 'encounter', ctx: Record<string, unknown> = encounter) {
  const o = processRawMessage(upload(name, ctx), { maxEventChars: 64 * 1024 });
  expect(o.rejections).toEqual([]);
  const e = o.events[0]!;
  applyEventPrivacy(e, policy);
  return e;
}

const pseudonymiseIds = (key = KEY_V1) => resolvePrivacy({ classes: { direct_identifier: 'pseudonymise' } }, key);

describe('the validator’s privacy step', () => {
  it('by default drops free text in health blocks, keeps everything else, and records no key', () => {
    const e = accepted(DEFAULT_PRIVACY_TABLE.default);
    expect(e.event.props.patient_id).toBe('PAT-0042');
    expect(e.event.props.encounter_summary).toEqual({ id: 'enc-1', hcw_id_list: ['hcw-1', 'hcw-2'], __extra: { mood: 'calm' } });
    expect(e.event.pseudonym_key).toBeNull();
    // Only the client's unknown property is worth a warning; the policy's drop is not one.
    expect(e.warnings.map((w) => w.rule)).toEqual(['unknown_property']);
  });

  it('keeps free text outside health blocks by default', () => {
    const e = accepted(DEFAULT_PRIVACY_TABLE.default, 'identify', { action: 'blocked', blocked: { reason: 'abuse', remarks: '3 reports' } });
    expect(e.event.props).toMatchObject({ action: 'blocked', blocked: { reason: 'abuse', remarks: '3 reports' } });
  });

  it('pseudonymises identifiers with the app’s newest key: the golden value, in strings and string lists, and records the version', () => {
    const e = accepted(pseudonymiseIds());
    expect(e.event.props.patient_id).toBe(PAT_V1);
    const summary = e.event.props.encounter_summary as { hcw_id_list: string[] };
    expect(summary.hcw_id_list).toHaveLength(2);
    expect(summary.hcw_id_list.every((h) => /^p1:[A-Za-z0-9_-]{22}$/.test(h))).toBe(true);
    expect(e.event.pseudonym_key).toBe(1);
    // The envelope's user id stays in the clear (the action store pulls by it).
    expect(e.event.user_id).toBe('u-1');
  });

  it('after a rotation pseudonymises new rows under the new version: the same patient gets another pseudonym', () => {
    const e = accepted(pseudonymiseIds(KEY_V2));
    expect(e.event.props.patient_id).toBe(PAT_V2);
    expect(e.event.pseudonym_key).toBe(2);
  });

  it('drops what cannot be an HMAC under pseudonymise (an epoch-ms registration date) and pseudonymises the text of the class', () => {
    const policy = resolvePrivacy({ classes: { quasi_identifier: 'pseudonymise' } }, KEY_V1);
    const e = accepted(policy, 'patient', {
      patient_id: 'PAT-0042',
      site_id: 's-1',
      action: 'add',
      category: 'facility',
      type: 'outpatient',
      registration_date: 1690000000000,
    });
    expect(e.event.props.registration_date).toBeUndefined();
    expect(e.event.props.patient_id).toBe('PAT-0042');
    expect(e.event.pseudonym_key).toBeNull();
  });

  it('empties a required text field its policy drops (Avro has no null for it)', () => {
    const e = accepted(resolvePrivacy({ health_blocks: { direct_identifier: 'drop' } }));
    expect(e.event.props.patient_id).toBe('');
    expect((e.event.props.encounter_summary as Record<string, unknown>).hcw_id_list).toBeUndefined();
  });

  it('tallies each field it pseudonymises or drops once per event, by class; what it keeps is not counted', () => {
    const tally = {};
    const o = processRawMessage(upload('encounter', encounter), { maxEventChars: 64 * 1024 });
    applyEventPrivacy(o.events[0]!, pseudonymiseIds(), tally);
    applyEventPrivacy(accepted(DEFAULT_PRIVACY_TABLE.default), DEFAULT_PRIVACY_TABLE.default, tally);
    // patient_id and hcw_id_list (a list of two, one field), and remarks; the second event was already without remarks.
    expect(tally).toEqual({ 'direct_identifier:pseudonymised': 2, 'free_text:dropped': 1 });
    const required = {};
    applyEventPrivacy(
      processRawMessage(upload('encounter', encounter), { maxEventChars: 64 * 1024 }).events[0]!,
      resolvePrivacy({ health_blocks: { direct_identifier: 'drop' } }),
      required,
    );
    // A required text field emptied counts as dropped.
    expect(required).toEqual({ 'direct_identifier:dropped': 2, 'free_text:dropped': 1 });
  });

  it('drops unknown properties of health blocks when the app says so, each with a named warning in place of unknown_property', () => {
    const e = accepted(resolvePrivacy({ unknown_properties: 'drop' }));
    expect(e.event.props.encounter_summary).toEqual({ id: 'enc-1', hcw_id_list: ['hcw-1', 'hcw-2'] });
    expect(e.warnings.map((w) => [w.path, w.rule])).toEqual([['props.encounter_summary.mood', 'unknown_property_dropped']]);
  });

  it('pseudonymises a patient catalog record’s id (the same pseudonym as in events) and its buddies, so they still join', () => {
    const o = processRawMessage(
      upload('', [{ id: 'PAT-0042', buddy_id_list: ['PAT-0043'], insurance_id: 'INS-1', country: 'Kenya' }] as unknown as Record<string, unknown>, {
        payload_kind: 'catalog:patient',
      }),
      { maxEventChars: 64 * 1024 },
    );
    expect(o.rejections).toEqual([]);
    const rec = o.catalog[0]!;
    applyCatalogPrivacy(rec, pseudonymiseIds());
    expect(rec.record.id).toBe(PAT_V1);
    expect(rec.record.record).toMatchObject({ id: PAT_V1, country: 'Kenya' });
    expect((rec.record.record.buddy_id_list as string[])[0]).toMatch(/^p1:/);
    expect(rec.record.record.insurance_id).toMatch(/^p1:/);
  });

  it('never pseudonymises a user’s id: the user catalog record keeps it, as events keep user_id', () => {
    const o = processRawMessage(
      upload('', [{ id: 'u-1', name: 'Ann', timezone: 'Africa/Nairobi' }] as unknown as Record<string, unknown>, { payload_kind: 'catalog:user' }),
      {
        maxEventChars: 64 * 1024,
      },
    );
    expect(o.rejections.flatMap((r) => r.reasons)).toEqual([]);
    const rec = o.catalog[0]!;
    applyCatalogPrivacy(rec, pseudonymiseIds());
    expect(rec.record.id).toBe('u-1');
    expect(rec.record.record.name).toMatch(/^p1:/);
  });
});

describe('fields a policy cannot remove', () => {
  it('are the required numbers, enums and booleans of a class other than none: listed here, so a new one is seen (docs/privacy.md, "Limits")', () => {
    const kept = [...eventDefs, ...catalogDefs].flatMap((def) =>
      [...privacyLeaves(def)]
        .filter((l) => {
          const field = l.object.fields[l.field]!;
          let t = field.type;
          while (t.kind === 'array' || t.kind === 'map') t = t.kind === 'array' ? t.items : t.values;
          const text = t.kind === 'scalar' && t.scalar === 'string';
          return field.required && field.type === t && !text && l.privacy !== undefined && l.privacy.class !== 'none';
        })
        .map((l) => `${'event' in def ? def.event : def.kind}: ${l.path.join('.')} (${l.privacy!.class})`),
    );
    // An encounter's sub_type (hiv, mental_health, …) is a required enum: `health: drop` keeps it.
    expect(kept).toEqual(['encounter: sub_type (health)']);
  });
});
