import { leftOutBy, unsetValues } from '../dsl/client';
import { opt, req, t, type ObjectDef } from '../dsl/types';
import { address, coordinates } from './shared-objects';
import { currencyCode } from './value-rules';

/**
 * Nested objects of spec 2.6 (shapes taken from samples). Requiredness inside these objects is "not
 * shown" in the spec (2.7); the choice made here, and recorded in docs/data-contract.md ("Event
 * types"), is: an object's `id` (or its one identifying field) is required, everything else optional —
 * an object without its identity is useless downstream, while rejecting events for a missing remark
 * would drop real behaviour data.
 *
 * Types: 2.6 `number` → double (no precision promised, so none is thrown away); LONG → epoch ms
 * (ISO strings rejected); "X appears" value lists are incomplete (2.7), so those fields are plain
 * strings, not enums. Record names are unique across all blocks so any object can be reused anywhere.
 */
export { address, coordinates };

export const item: ObjectDef = {
  name: 'Item',
  doc: 'E-commerce item',
  fields: {
    id: req(t.string),
    type: opt(t.string, { doc: 'drug, grocery and the search result types appear; list not complete' }),
    quantity: opt(t.double, { min: 0 }),
    price: opt(t.double, { min: 0 }),
    currency: opt(t.string, { doc: 'ISO 4217 code' }),
    stock_status: opt(t.string, { doc: 'in_stock appears; list not complete' }),
    promo_id: opt(t.string),
    // A negative discount would be a surcharge. No upper bound: whether it is a fraction (0.1) or an
    // amount is not shown.
    discount: opt(t.double, { min: 0 }),
    facility_id: opt(t.string),
  },
  rules: [currencyCode('currency')],
};

/** Both fields required: the object exists only to say which item of which type. */
export const itemType: ObjectDef = {
  name: 'ItemType',
  fields: {
    id: req(t.string),
    type: req(t.string, { client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client sends only the ids (a joined items_list)') } }),
  },
};

export const store: ObjectDef = {
  name: 'Store',
  fields: { id: req(t.string), lat: opt(t.double, { min: -90, max: 90 }), lon: opt(t.double, { min: -180, max: 180 }) },
};

export const report: ObjectDef = {
  name: 'Report',
  fields: { id: req(t.string), short_desc: opt(t.string), remarks: opt(t.string) },
};

export const itemInfo: ObjectDef = {
  name: 'ItemInfo',
  doc: 'What a verified item scan found',
  fields: {
    id: req(t.string),
    type: opt(t.string),
    batch_id: opt(t.string),
    survey_id: opt(t.string),
    reward_id: opt(t.string),
    is_featured: opt(t.boolean),
    // causalfoundry/ios-sdk sends 0 for a date it does not have.
    production_date: opt(t.epochMs, { client: { unset: unsetValues(0) } }),
    expiry_date: opt(t.epochMs, { client: { unset: unsetValues(0) } }),
  },
};

/** No id: `type` (bio appears) is what makes an observation meaningful, so it is the required field. */
export const diagnosisItem: ObjectDef = {
  name: 'DiagnosisItem',
  privacy: 'health',
  fields: {
    type: req(t.string, { doc: 'bio appears; list not complete' }),
    sub_type: opt(t.string, { doc: 'age appears' }),
    category: opt(t.string, { doc: 'given appears' }),
    // causalfoundry/ios-sdk sends whatever the app passed: a number, a boolean or a string.
    value: opt(t.string, { client: { stringify: true } }),
    unit: opt(t.string),
    observation_time: opt(t.epochMs),
    remarks: opt(t.string),
  },
};

/**
 * Questionnaire question, also used by chief complaints. Types of score/full_score are not given;
 * they are scores, so double (documented).
 */
const questionItem: ObjectDef = {
  name: 'QuestionItem',
  privacy: 'health',
  fields: {
    type: opt(t.string, { doc: 'closed_ended appears' }),
    question: req(t.string),
    reply: opt(t.string),
    score: opt(t.double),
    full_score: opt(t.double),
    remarks: opt(t.string),
    section: opt(t.string),
  },
};

const outcomeItem: ObjectDef = {
  name: 'OutcomeItem',
  privacy: 'health',
  fields: {
    type: req(t.string, { doc: 'risk_status appears' }),
    sub_type: opt(t.string),
    value: opt(t.string),
    remarks: opt(t.string),
  },
};

const healthQuestionnaire: ObjectDef = {
  name: 'HealthQuestionnaire',
  privacy: 'health',
  fields: {
    type: req(t.string, { doc: 'hiv, other, assessment appear' }),
    sub_type: opt(t.string),
    category: opt(t.string),
    question_list: opt(t.array(t.object(questionItem))),
    outcome_list: opt(t.array(t.object(outcomeItem))),
    remarks: opt(t.string),
  },
};

/** Item shapes of sign/symptom and treatment adherence lists are not shown: any JSON. */
const diagnosticElements: ObjectDef = {
  name: 'DiagnosticElements',
  privacy: 'health',
  fields: {
    id: req(t.string),
    investigation_list: opt(t.array(t.object(diagnosisItem))),
    biometric_list: opt(t.array(t.object(diagnosisItem))),
    sign_symptom_list: opt(t.array(t.any)),
    // causalfoundry/ios-sdk 1.1.4–1.1.8 names: treatment_adherence, health_questionnaires.
    treatment_adherence_list: opt(t.array(t.any), { client: { aliases: ['treatment_adherence'] } }),
    health_questionnaire_list: opt(t.array(t.object(healthQuestionnaire)), { client: { aliases: ['health_questionnaires'] } }),
  },
};

/** Lists whose item shapes are "not shown" are arrays of any JSON; plans and pregnancy may be null. */
export const encounterSummary: ObjectDef = {
  name: 'EncounterSummary',
  fields: {
    id: req(t.string),
    appointment_id: opt(t.string),
    encounter_time: opt(t.epochMs),
    hcw_id_list: opt(t.array(t.string)),
    // causalfoundry/ios-sdk 1.1.4–1.1.8 names: prev_diagnosis_status, diagnosis_status, main_complaints.
    prev_diagnosis_status_list: opt(t.array(t.any), { client: { aliases: ['prev_diagnosis_status'] } }),
    diagnosis_status_list: opt(t.array(t.any), { client: { aliases: ['diagnosis_status'] } }),
    // The spec's name; the client library sends `main_complaints_list` (spec 2.6).
    main_complaint_list: opt(t.array(t.any), { aliases: ['main_complaints_list'], client: { aliases: ['main_complaints'] } }),
    counseling_list: opt(t.array(t.any)),
    immunization_list: opt(t.array(t.any)),
    prev_treatment_plan: opt(t.any),
    treatment_plan: opt(t.any),
    pregnancy_details: opt(t.any),
    diagnostic_elements: opt(t.object(diagnosticElements)),
    remarks: opt(t.string),
    is_followup_id: opt(t.string),
    is_referral_id: opt(t.string),
    has_followup: opt(t.boolean),
    has_referral: opt(t.boolean),
  },
};

const appointmentUpdate: ObjectDef = {
  name: 'AppointmentUpdate',
  fields: {
    id: req(t.string, { client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client sends only the reason (update_reason)') } }),
    reason: opt(t.string),
    prev_time: opt(t.epochMs),
  },
};

const appointmentMissed: ObjectDef = {
  name: 'AppointmentMissed',
  fields: {
    id: req(t.string, { client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client sends followup_id only when the app gives one') } }),
    type: opt(t.string, { doc: 'follow-up channel, e.g. a chat application' }),
    time: opt(t.epochMs),
    response: opt(t.string),
  },
};

export const appointmentItem: ObjectDef = {
  name: 'AppointmentItem',
  fields: {
    id: req(t.string),
    hcw_id: opt(t.string),
    category: opt(t.string),
    status: opt(t.string, { doc: 'missed is the only value in samples; list not complete' }),
    time: opt(t.epochMs),
    is_time_sensitive: opt(t.boolean),
    type_list: opt(t.array(t.string), { doc: 'assessment appears' }),
    sub_type_list: opt(t.array(t.string), { doc: 'hiv appears' }),
    update: opt(t.object(appointmentUpdate)),
    missed: opt(t.object(appointmentMissed)),
  },
};

export const promoItem: ObjectDef = {
  name: 'PromoItem',
  fields: { id: req(t.string), type: opt(t.string, { doc: 'drug appears' }) },
};

export const survey: ObjectDef = {
  name: 'Survey',
  fields: {
    id: req(t.string),
    type: opt(t.string, { doc: 'open_ended appears' }),
    is_completed: opt(t.boolean),
    reward_id: opt(t.string),
  },
};

export const surveyResponse: ObjectDef = {
  name: 'SurveyResponse',
  fields: {
    id: req(t.string, { client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client sends only question and response texts (joined lists)') } }),
    question: opt(t.string),
    response: opt(t.string),
    type: opt(t.string),
  },
};

/** No id: a redemption says what was redeemed (`type`) and how many points; both required. */
export const redeem: ObjectDef = {
  name: 'Redeem',
  fields: {
    type: req(t.string, { doc: 'cash appears' }),
    points_withdrawn: req(t.double, { min: 0 }),
    converted_value: opt(t.double, { min: 0 }),
    currency: opt(t.string),
    is_successful: opt(t.boolean),
  },
  rules: [
    // CausalFoundrySDKCore 1.2.3 RedeemObject: `currency = currency?.rawValue ?? ""`, encoded as sent.
    currencyCode('currency', {
      rule: 'redeem_currency_empty',
      message:
        'an empty currency is not an ISO 4217 code; accepted as a known client quirk: the iOS SDK (CausalFoundrySDKCore 1.2.3 RedeemObject) sends "" when the app gives no currency',
    }),
  ],
};

export const contactDetails: ObjectDef = {
  name: 'ContactDetails',
  fields: {
    id: req(t.string),
    channel: opt(t.string, { doc: 'call appears' }),
    type: opt(t.string, { doc: 'follow_up appears' }),
    sub_type: opt(t.string),
    customer_type: opt(t.string),
    is_transfer: opt(t.boolean),
    is_priority: opt(t.boolean),
    duration: opt(t.double),
  },
};

export const transfer: ObjectDef = {
  name: 'Transfer',
  fields: { id: req(t.string), destination: opt(t.string) },
};

export const qualityTraits: ObjectDef = {
  name: 'QualityTraits',
  fields: { audit_count: opt(t.int, { min: 0 }), fatal_calls: opt(t.int, { min: 0 }), performance_group: opt(t.string) },
};

const INCIDENT_TYPES = ['emergency', 'grievance', 'non_emergency', 'transfer', 'follow_up', 'service_offering', 'customer_support', 'other'] as const;

const chiefComplaint: ObjectDef = {
  name: 'ChiefComplaint',
  privacy: 'health',
  fields: { complaint: req(t.string), questions_list: opt(t.array(t.object(questionItem))) },
};

/** Requiredness as given by the spec's table (2.6). */
export const incidentDetails: ObjectDef = {
  name: 'IncidentDetails',
  fields: {
    id: req(t.string),
    contact_id: opt(t.string),
    type: req(t.enum('incident_type', INCIDENT_TYPES)),
    sub_type: opt(t.string),
    category: opt(t.array(t.string)),
    language: opt(t.string, { doc: 'language chosen for the complaint questions' }),
    is_duplicate_incident: opt(t.boolean),
    is_sms_set_location: opt(t.boolean, { doc: 'location confirmed by SMS' }),
    severity: opt(t.string),
    chief_complaints_list: opt(t.array(t.object(chiefComplaint))),
  },
};

export const emergencyPatient: ObjectDef = {
  name: 'EmergencyPatient',
  fields: {
    id: req(t.string, { privacy: { class: 'direct_identifier', person: 'patient' } }),
    age: opt(t.int, { min: 0 }),
    blood_group: opt(t.string),
    gender: opt(t.string),
  },
};

const AMBULANCE_STATUSES = ['available', 'busy', 'maintenance', 'other'] as const;

export const ambulanceItem: ObjectDef = {
  name: 'AmbulanceItem',
  fields: {
    id: req(t.string),
    driver_id: req(t.string),
    type: req(t.string),
    emso_id: opt(t.string),
    status: req(t.enum('ambulance_status', AMBULANCE_STATUSES)),
    distance_from_incident: opt(t.float),
    eta: opt(t.float),
    gps_datetime: opt(t.string),
    location: opt(t.object(address)),
  },
};

export const denialDetail: ObjectDef = {
  name: 'DenialDetail',
  fields: { reason: req(t.string), author: opt(t.string), remarks: opt(t.string) },
};

/**
 * Chat message body. Its shape depends on the message `type` (2.6), which lives on the parent
 * event, so the fields are all optional here and the per-type requirements are a rule on the
 * message event (see chat.ts). Bodies of video, sticker, contact and poll are not shown: their
 * fields are kept as extras (with warnings), never dropped.
 */
export const messageBody: ObjectDef = {
  name: 'MessageBody',
  // What people wrote or sent: text, media, links.
  privacy: 'free_text',
  fields: {
    text: opt(t.string),
    mime_type: opt(t.string),
    base64: opt(t.string),
    sha256: opt(t.string),
    caption: opt(t.string),
    url: opt(t.string),
    emoji: opt(t.string),
  },
};
