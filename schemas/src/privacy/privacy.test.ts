import type { Block } from '@evp/core';
import { catalogDefs } from '../catalogs/definitions';
import type { ObjectDef } from '../dsl/types';
import { eventDefs } from '../events/event-defs';
import { FIELD_VOCABULARY, personIdFields, privacyLeaves, type PersonIdField } from './index';

/** Health, chat and call-centre blocks and every catalog must classify every field (issue 41). */
const CLASSIFIED_BLOCKS: readonly Block[] = ['patient_mgmt', 'emergency_mgmt', 'call_center', 'chat'];
const mustClassify: { label: string; def: ObjectDef }[] = [
  ...eventDefs.filter((d) => CLASSIFIED_BLOCKS.includes(d.block)).map((d) => ({ label: `event ${d.event}`, def: d })),
  ...catalogDefs.map((d) => ({ label: `catalog ${d.kind}`, def: d })),
];

/** A name that reads as a person's id: these must carry a person kind, or be a direct identifier outside the platform's ids. */
const LOOKS_LIKE_PERSON_ID = /(^|_)(patient|user|buddy|member|sender|recipient|hcw|hw|chw|supervisor|driver|emso|contact|insurance)(_id)?(_list)?$/;

describe('privacy classes', () => {
  it('classify every field of the health, chat, call-centre and catalog definitions', () => {
    const unclassified = mustClassify.flatMap(({ label, def }) =>
      [...privacyLeaves(def)].filter((l) => l.privacy === undefined).map((l) => `${label}: ${l.path.join('.')}`),
    );
    expect(unclassified).toEqual([]);
  });

  it('give every field that looks like a person id a person kind, or name it a direct identifier', () => {
    const loose = [...eventDefs, ...catalogDefs].flatMap((def) =>
      [...privacyLeaves(def)]
        .filter((l) => LOOKS_LIKE_PERSON_ID.test(l.field) && !(l.privacy?.person || l.privacy?.class === 'direct_identifier'))
        .map((l) => `${'event' in def ? def.event : def.kind}: ${l.path.join('.')}`),
    );
    expect(loose).toEqual([]);
  });

  it('use every name of the vocabulary somewhere', () => {
    const used = new Set([...eventDefs, ...catalogDefs].flatMap((def) => [...privacyLeaves(def)].map((l) => l.field)));
    // Object-valued fields are not leaves; their names may still be in the vocabulary for an `any` field elsewhere.
    expect(Object.keys(FIELD_VOCABULARY).filter((n) => !used.has(n))).toEqual([]);
  });

  it('tag a catalog record that is a person by its own id', () => {
    const ids = personIdFields().filter((f) => f.source === 'catalog' && f.path.join('.') === 'id');
    expect(ids.map((f) => [f.name, f.person])).toEqual([
      ['user', 'user'],
      ['hcw', 'health_worker'],
      ['patient', 'patient'],
      ['chat_user', 'chat_user'],
    ]);
  });

  it('find a patient in every place the issues name: patient_id, catalog_patient, patient_list and buddy_id_list', () => {
    const patients = personIdFields().filter((f) => f.person === 'patient');
    const at = (f: PersonIdField) => `${f.source}:${f.name}:${f.path.join('.')}`;
    expect(patients.map(at)).toEqual(
      expect.arrayContaining([
        'event:patient:patient_id',
        'event:encounter:patient_id',
        'event:incident:patient_list.[].id',
        'catalog:patient:id',
        'catalog:patient:buddy_id_list.[]',
      ]),
    );
    // Every patient-management event names its patient.
    const pm = eventDefs.filter((d) => d.block === 'patient_mgmt').map((d) => d.event);
    const withPatient = new Set(patients.filter((f) => f.source === 'event').map((f) => f.name));
    expect(pm.filter((e) => !withPatient.has(e))).toEqual([]);
  });
});
