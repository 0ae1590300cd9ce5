import { leftOutBy } from '../dsl/client';
import { opt, req, t, type ObjectDef } from '../dsl/types';

/** Shared objects of spec 2.3. */
const SEARCH_RESULT_TYPES = [
  'patient_record',
  'blood',
  'grocery',
  'oxygen',
  'drug',
  'medical_equipment',
  'lifestyle_item',
  'investigation_test_item',
  'treatment_plan_item',
  'subscription',
  'incident',
  'address',
  'ambulance',
  'other_vehicle',
  'contact',
  'call',
  'email',
  'sms',
  'other',
] as const;

export const blockedObject: ObjectDef = {
  name: 'Blocked',
  doc: 'Why a user was blocked or unblocked (identify)',
  fields: { reason: req(t.string), remarks: opt(t.string) },
};

/**
 * Result types causalfoundry/ios-sdk's SearchItemType has beyond the spec's list (kept, enum_extension);
 * its lifestyle_plan_item is the spec's lifestyle_item (0.4.x sends the Swift case names, camelCase:
 * the other names fold to spec symbols, this one is an alias in both spellings).
 */
const SEARCH_RESULT_CLIENT_TYPES = [
  'facility',
  'appointment',
  'assessment',
  'medical_record',
  'electronics',
  'clothing',
  'book',
  'psychological_plan_item',
  'counseling_plan_item',
  'item_verification',
  'item_report',
  'reward',
  'survey',
] as const;

export const searchResult: ObjectDef = {
  name: 'SearchResult',
  fields: {
    id: req(t.string),
    type: req(
      t.enum('search_result_type', SEARCH_RESULT_TYPES, {
        aliases: { lifestyle_plan_item: 'lifestyle_item', lifestylePlanItem: 'lifestyle_item' },
        extensions: SEARCH_RESULT_CLIENT_TYPES,
      }),
      { client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client sends only the ids (a joined results_list)') } },
    ),
  },
};

export const coordinates: ObjectDef = {
  name: 'Coordinates',
  fields: { lat: opt(t.float, { min: -90, max: 90 }), lon: opt(t.float, { min: -180, max: 180 }) },
};

export const address: ObjectDef = {
  name: 'Address',
  doc: 'Either site_id or country must be present (spec 2.3, 7.6)',
  fields: {
    site_id: opt(t.string),
    name: opt(t.string),
    country: opt(t.string),
    region_state: opt(t.string),
    district: opt(t.string),
    sub_district: opt(t.string),
    city_town: opt(t.string),
    street_address: opt(t.string),
    landmark: opt(t.string),
    coordinates: opt(t.object(coordinates)),
  },
  rules: [
    (v) =>
      v.site_id === undefined && v.country === undefined ? [{ path: '', rule: 'address_site_or_country', message: 'an address needs site_id or country' }] : [],
  ],
};
