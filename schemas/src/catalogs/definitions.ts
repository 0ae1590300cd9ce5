import { CATALOG_KINDS, type CatalogKind } from '@evp/core';
import { unsetValues } from '../dsl/client';
import { opt, req, t, type FieldDef } from '../dsl/types';
import type { PersonKind } from '../privacy/types';
import type { CatalogDef } from './types';

/**
 * Catalog records (spec 2.4), one definition per kind. Requiredness is the spec's baseline; value
 * lists are enforced where the spec lists values (and only there: "from a predefined set" without
 * the set, e.g. education_level, stays a free string rather than rejecting real data).
 */

export const ACCOUNT_TYPES = ['basic', 'classic', 'advanced', 'admin', 'other'] as const;
export const GENDERS = ['male', 'female', 'other'] as const;
export const MARITAL_STATUSES = ['single', 'married', 'widowed', 'divorced', 'separated', 'other', 'undisclosed'] as const;
/** Shared by family_members and children_under_five. */
export const HOUSEHOLD_COUNTS = ['none', '1', '2', '3', '4', '5_or_more', 'undisclosed'] as const;
export const SITE_TYPES = ['pharmacy', 'clinic', 'community'] as const;

/**
 * birth_year bounds. The static bounds are the plausible range shown in the docs and the Avro doc;
 * the normaliser additionally rejects a year after the year the record was received
 * (`birth_year_future`), which a static bound cannot express without making generated files change
 * every January.
 */
export const BIRTH_YEAR_MIN = 1900;
export const BIRTH_YEAR_MAX = 2100;

const s = (doc?: string) => opt(t.string, doc ? { doc } : {});
const strings = (...names: string[]): Record<string, FieldDef> => Object.fromEntries(names.map((n) => [n, s()]));
const stringList = (doc?: string) => opt(t.array(t.string), doc ? { doc } : {});
// causalfoundry/ios-sdk 0.9.5+ send birth_year 0 when the app gave none (UserCatalogModel birthYear: Int? = 0),
// the Kenkai client "0" (UserCatalogModel.swift:56).
const birthYear = () => opt(t.int, { doc: 'YYYY', min: BIRTH_YEAR_MIN, max: BIRTH_YEAR_MAX, client: { unset: unsetValues(0) } });
// causalfoundry/ios-sdk UserGender and Kenkai's Gender.swift (user catalog) add undisclosed.
const gender = () => opt(t.enum('gender', GENDERS, { extensions: ['undisclosed'] }));
const packagingSize = () => opt(t.float, { min: 0 });
const id = (doc?: string) => req(t.string, doc ? { doc } : {});
/** The record's own id, when the record is a person (erasure and export find them by it). */
const personId = (person: PersonKind, doc?: string) => req(t.string, { ...(doc ? { doc } : {}), privacy: { class: 'direct_identifier', person } });
/** A person's name. */
const personName = (person: PersonKind) => opt(t.string, { privacy: { class: 'direct_identifier', person } });

export const userCatalog: CatalogDef = {
  kind: 'user',
  name: 'UserCatalogRecord',
  doc: 'User catalog (core): the app user as the partner knows them',
  fields: {
    id: personId('user', 'Partner user id'),
    name: personName('user'),
    country: s('full name'),
    region_state: s(),
    city: s(),
    workplace: s(),
    profession: s(),
    zipcode: s(),
    experience: s(),
    organization_id: s(),
    // The synthetic data generator sends `organization` (generator.md, 13).
    organization_name: opt(t.string, { client: { aliases: ['organization'] } }),
    language: s('full name'),
    education_level: s('from a predefined set (the set is not shown in the spec)'),
    timezone: req(t.string, { doc: 'current timezone; auto tracked' }),
    account_type: opt(t.enum('account_type', ACCOUNT_TYPES)),
    birth_year: birthYear(),
    gender: gender(),
    marital_status: opt(t.enum('marital_status', MARITAL_STATUSES)),
    family_members: opt(t.enum('family_members', HOUSEHOLD_COUNTS)),
    children_under_five: opt(t.enum('children_under_five', HOUSEHOLD_COUNTS)),
    referral_code: s("the user's own code"),
  },
};

const siteFields = (required: boolean): Record<string, FieldDef> => {
  const r = (f: FieldDef): FieldDef => (required ? f : { ...f, required: false });
  return {
    id: id(),
    name: r(req(t.string)),
    type: r(req(t.enum('site_type', SITE_TYPES))),
    ...strings(
      'country',
      'region_state',
      'city',
      'street_address',
      'zipcode',
      'level',
      'culture',
      'sub_type',
      'priority',
      'district',
      'sub_district',
      'landmark',
    ),
    // causalfoundry/ios-sdk 1.1.4–1.1.8 chwsite records call it parent_site_id.
    parent_id: opt(t.string, { client: { aliases: ['parent_site_id'] } }),
    is_active: opt(t.boolean),
    is_private: opt(t.boolean),
    latitude: opt(t.double, { min: -90, max: 90 }),
    longitude: opt(t.double, { min: -180, max: 180 }),
    attributes: opt(t.map(t.any), { doc: 'free attributes such as bed count or insurance plans' }),
    service_list: stringList('services provided at the site'),
  };
};

export const siteCatalog: CatalogDef = {
  kind: 'site',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'SiteCatalogRecord',
  doc: 'Site catalog (core): pharmacies, clinics, community sites',
  fields: siteFields(true),
};

/**
 * Facility (deprecated, spec 9; its fields are not shown). Accepted with the site's fields so old
 * clients keep working, but only `id` is required: requiring `name`/`type` would reject legacy
 * records for fields the spec never promised them. Records stay on their own topic and table
 * (`catalog.facility`) instead of being folded into sites, so legacy ids never overwrite sites.
 * Every accepted record carries a `deprecated_kind` warning.
 */
export const facilityCatalog: CatalogDef = {
  kind: 'facility',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'FacilityCatalogRecord',
  doc: 'Facility catalog (deprecated; the site catalog replaces it). Site fields, only id required',
  deprecated: true,
  fields: siteFields(false),
};

export const hcwCatalog: CatalogDef = {
  kind: 'hcw',
  name: 'HcwCatalogRecord',
  doc: 'Healthcare worker catalog (the gateway also accepts the kind user_chw)',
  fields: {
    id: personId('health_worker'),
    name: personName('health_worker'),
    role: s(),
    // causalfoundry/ios-sdk 0.4.3–1.0.3 (siteIdsList in 0.4.x).
    site_id_list: opt(t.array(t.string), { client: { aliases: ['site_ids_list'] } }),
    supervisor_id_list: stringList(),
  },
};

export const patientCatalog: CatalogDef = {
  kind: 'patient',
  name: 'PatientCatalogRecord',
  doc: 'Patient catalog',
  fields: {
    id: personId('patient'),
    ...strings(
      'country',
      'region_state',
      'city',
      'profession',
      'education_level',
      'insurance_id',
      'insurance_type',
      'landmark',
      'phone_number_category',
      'program_id',
      'family_id',
      'transport_mode',
      'employment_status',
      'nationality',
    ),
    // The spec gives the patient's marital_status no value list (unlike the user's): a free string.
    marital_status: s(),
    // causalfoundry/ios-sdk 0.9.5–1.0.3 (siteIdsList in 0.4.x).
    site_id_list: opt(t.array(t.string), { client: { aliases: ['site_ids_list'] } }),
    hw_id_list: stringList(),
    buddy_id_list: stringList(),
    insurance_status: opt(t.boolean),
    has_email: opt(t.boolean),
    // causalfoundry/ios-sdk 1.1.4+ and the Kenkai client name the chat application: has_whatsapp.
    has_chatapp: opt(t.boolean, { doc: 'the patient supplied a number for a chat application', client: { aliases: ['has_whatsapp'] } }),
  },
};

export const chatUserCatalog: CatalogDef = {
  kind: 'chat_user',
  name: 'ChatUserCatalogRecord',
  doc: 'Chat user catalog',
  fields: {
    id: personId('chat_user'),
    name: personName('chat_user'),
    city: s(),
    region_state: s(),
    country: s('ISO-3166 country name'),
    language: s('comma-separated ISO-639-1 names'),
    birth_year: birthYear(),
    gender: gender(),
    timezone: req(t.string),
  },
};

const chatParty = (kind: CatalogKind, name: string, doc: string): CatalogDef => ({
  // A group or a bot, not a person.
  privacy: 'none',
  kind,
  name,
  doc,
  fields: { id: id(), name: req(t.string), description: s(), timezone: s() },
});

export const chatGroupCatalog = chatParty('chat_group', 'ChatGroupCatalogRecord', 'Chat group catalog');
export const chatBotCatalog = chatParty('chat_bot', 'ChatBotCatalogRecord', 'Chat bot catalog');

const supply = (...names: string[]) => strings('market_id', 'packaging', 'packaging_units', 'supplier_id', 'supplier_name', ...names);

export const drugCatalog: CatalogDef = {
  kind: 'drug',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'DrugCatalogRecord',
  doc: 'Drug catalog',
  fields: {
    id: id(),
    name: req(t.string),
    ...strings('description', 'drug_form', 'drug_strength', 'atc_anatomical_group', 'otc_or_ethical', 'packaging', 'producer', 'supplier_id', 'supplier_name'),
    market_id: s('probably a country code'),
    active_ingredients: stringList(),
  },
};

export const groceryCatalog: CatalogDef = {
  kind: 'grocery',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'GroceryCatalogRecord',
  doc: 'Grocery catalog',
  fields: {
    id: id(),
    name: req(t.string),
    ...supply('description', 'category', 'producer'),
    active_ingredients: stringList(),
    packaging_size: packagingSize(),
  },
};

const present = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

export const bloodCatalog: CatalogDef = {
  kind: 'blood',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'BloodCatalogRecord',
  doc: 'Blood catalog',
  fields: {
    id: id('defaults to <blood_group>_<blood_component> (blood_component absent → "default")'),
    blood_group: req(t.string),
    blood_component: s(),
    ...supply(),
    packaging_size: packagingSize(),
  },
  // Spec 2.4: "when no id exists, it takes the shape <blood_group>_<blood_component>". A record
  // without a component still needs a stable id, hence the `default` placeholder.
  defaultId: (r) => (present(r.blood_group) ? `${r.blood_group}_${present(r.blood_component) ? r.blood_component : 'default'}` : undefined),
  defaultIdDoc: '<blood_group>_<blood_component>, or <blood_group>_default without a component',
};

export const oxygenCatalog: CatalogDef = {
  kind: 'oxygen',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'OxygenCatalogRecord',
  doc: 'Oxygen catalog',
  fields: {
    id: id('defaults to oxygen_<packaging> (packaging absent → oxygen_default)'),
    ...supply(),
    packaging_size: packagingSize(),
  },
  // Spec 2.4 cuts the suffix off ("oxygen followed by an underscore and a suffix"). Packaging is
  // what tells oxygen products apart (cylinder, concentrator, …), so it is the suffix.
  defaultId: (r) => `oxygen_${present(r.packaging) ? r.packaging : 'default'}`,
  defaultIdDoc: 'oxygen_<packaging>, or oxygen_default without packaging',
};

export const medicalEquipmentCatalog: CatalogDef = {
  kind: 'medical_equipment',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'MedicalEquipmentCatalogRecord',
  doc: 'Medical equipment catalog',
  fields: {
    id: id(),
    name: req(t.string),
    ...supply('description', 'category', 'producer'),
    packaging_size: packagingSize(),
  },
};

/*
 * Kinds the spec does not list that real clients upload (causalfoundry/ios-sdk 0.4.3–1.2.3 and the
 * Kenkai line): the things their events refer to, so they are catalogs like the others. Only `id` is
 * required (nothing else is in a spec to hold clients to); fields are typed as those clients send them.
 */
export const mediaCatalog: CatalogDef = {
  kind: 'media',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'MediaCatalogRecord',
  doc: 'Media catalog (not in the spec; uploaded by causalfoundry/ios-sdk 1.1.4+ and Kenkai): the videos, audio and images media events refer to',
  fields: {
    id: id(),
    name: s(),
    description: s(),
    length: opt(t.int, { doc: 'duration as the client measures it', min: 0 }),
    type: s('video, audio, image'),
    resolution: s(),
    language: s(),
  },
};

export const surveyCatalog: CatalogDef = {
  kind: 'survey',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'SurveyCatalogRecord',
  doc: 'Survey catalog (not in the spec; uploaded by causalfoundry/ios-sdk and Kenkai): the surveys loyalty survey events refer to',
  fields: {
    id: id(),
    name: s(),
    duration: opt(t.int, { min: 0 }),
    type: s('open_ended, closed_ended, nominal, likert_scale, rating_scale, yes_no, interview, other'),
    reward_id: s(),
    questions_list: stringList(),
    description: s(),
    creation_date: s('as sent: a local time with offset, a date, or ""'),
    expiry_date: s('as sent: a local time with offset, a date, or ""'),
    organization_id: s(),
    organization_name: s(),
  },
};

export const rewardCatalog: CatalogDef = {
  kind: 'reward',
  // Describes a place or a product, not a person (docs/privacy.md).
  privacy: 'none',
  name: 'RewardCatalogRecord',
  doc: 'Reward catalog (not in the spec; uploaded by causalfoundry/ios-sdk and Kenkai): the rewards loyalty reward events refer to',
  fields: {
    id: id(),
    name: s(),
    description: s(),
    type: s('cash, airtime, other'),
    required_points: opt(t.double, { min: 0 }),
    creation_date: s('as sent: a local time with offset, a date, or ""'),
    expiry_date: s('as sent: a local time with offset, a date, or ""'),
    organization_id: s(),
    organization_name: s(),
  },
};

/** Every catalog definition, in CATALOG_KINDS order (the generator picks this export up). */
export const catalogDefs: CatalogDef[] = [
  userCatalog,
  siteCatalog,
  hcwCatalog,
  patientCatalog,
  chatUserCatalog,
  chatGroupCatalog,
  chatBotCatalog,
  drugCatalog,
  groceryCatalog,
  bloodCatalog,
  oxygenCatalog,
  medicalEquipmentCatalog,
  facilityCatalog,
  mediaCatalog,
  surveyCatalog,
  rewardCatalog,
];

/** Another name a kind arrives under. */
export interface CatalogKindAlias {
  kind: CatalogKind;
  /** A client's own name (not sanctioned by the spec or the issues): records carry a `catalog_kind_alias` warning naming these clients. */
  clients?: string;
  /** Fields the kind requires that records under this name never have, with the value their absence means (warning `default_applied`). */
  defaults?: Readonly<Record<string, { value: unknown; doc: string }>>;
}

/**
 * Every other name a kind arrives under, in one place (the gateway and the validator both resolve
 * through resolveCatalogKind): `user_chw` (issue 4), and the subjects of causalfoundry/ios-sdk —
 * `chw` (0.4.3–0.5.3) for hcw, and `chwsite` (0.4.3–1.1.8) for site. A chwsite record has no `type`:
 * it is a community health unit's site, so `community`.
 */
export const catalogKindAliases: Readonly<Record<string, CatalogKindAlias>> = {
  user_chw: { kind: 'hcw' },
  chw: { kind: 'hcw', clients: 'causalfoundry/ios-sdk 0.4.3–0.5.3' },
  chwsite: {
    kind: 'site',
    clients: 'causalfoundry/ios-sdk 0.4.3–1.1.8',
    defaults: { type: { value: 'community', doc: 'a community health worker site is a community site' } },
  },
};

const byKind = new Map<string, CatalogDef>(catalogDefs.map((d) => [d.kind, d]));

/** The alias a submitted name is, if it is one (own properties only: `constructor` is no alias). */
export const catalogKindAlias = (name: string): CatalogKindAlias | undefined =>
  Object.hasOwn(catalogKindAliases, name) ? catalogKindAliases[name] : undefined;

/** The kind a submitted name means (aliases resolved), or undefined when it is not a catalog kind. */
export function resolveCatalogKind(name: string): CatalogKind | undefined {
  const kind = catalogKindAlias(name)?.kind ?? name;
  return (CATALOG_KINDS as readonly string[]).includes(kind) ? (kind as CatalogKind) : undefined;
}

/** Every name a catalog submission may use: the kinds, then the aliases. */
export const catalogKindNames = (): string[] => [...CATALOG_KINDS, ...Object.keys(catalogKindAliases)];

export function catalogDef(kind: CatalogKind): CatalogDef {
  const def = byKind.get(kind);
  // Unreachable while the definitions test holds (one definition per CATALOG_KINDS entry).
  if (!def) throw new Error(`no catalog definition for kind ${kind}`);
  return def;
}
