import { leftOutBy } from '../dsl/client';
import { opt, req, t, type EventDef } from '../dsl/types';
import { appointmentItem, diagnosisItem, encounterSummary } from './objects';

/** Patient management block events (spec 6, Patient management). */
const PATIENT_ACTIONS = ['view', 'add', 'update', 'done', 'remove', 'other'] as const;
const PATIENT_CATEGORIES = ['facility', 'community', 'patient_address', 'virtual', 'other'] as const;
const PATIENT_TYPES = ['triage', 'outpatient', 'inpatient', 'pharmacy', 'door_to_door', 'camp', 'other'] as const;
const ENCOUNTER_TYPES = ['screening', 'assessment', 'enrolment', 'medical_review', 'counseling', 'other'] as const;
const ENCOUNTER_SUB_TYPES = [
  'bio',
  'hiv',
  'ncd',
  'tb',
  'ecd',
  'diabetes',
  'hypertension',
  'pregnancy',
  'mental_health',
  'substance_use_disorder',
  'adolescent_health',
  'general_screening',
  'antenatal',
  'postnatal',
  'cervical_cancer',
  'lifestyle',
  'psychological',
  'gender_based_violence',
  'sexual_behaviour',
  'economic_strengthening',
  'other',
] as const;

const patientEvent: EventDef = {
  event: 'patient',
  block: 'patient_mgmt',
  name: 'PatientProps',
  fields: {
    // causalfoundry/ios-sdk 1.1.4–1.1.8 send the patient id as `id` (case patientId = "id").
    patient_id: req(t.string, { client: { aliases: ['id'] } }),
    site_id: req(t.string),
    action: req(t.enum('patient_action', PATIENT_ACTIONS)),
    // Required with a spec default: an SDK that omits it means "not from the central repository".
    is_from_gho: req(t.boolean, { doc: 'data fetched from a central repository', default: false }),
    category: req(t.enum('patient_category', PATIENT_CATEGORIES), {
      client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client never sends it (it sends a free-string location instead)') },
    }),
    type: req(t.enum('patient_type', PATIENT_TYPES)),
    sub_type: opt(t.string),
    biometric_list: opt(t.array(t.object(diagnosisItem))),
    // Shape "not shown" (2.7); the spec says object, so any JSON object.
    pregnancy_details: opt(t.map(t.any)),
    registration_date: opt(t.epochMs),
  },
};

const encounterEvent: EventDef = {
  event: 'encounter',
  block: 'patient_mgmt',
  name: 'EncounterProps',
  fields: {
    patient_id: req(t.string, { client: { aliases: ['id'] } }),
    site_id: req(t.string),
    action: req(t.enum('patient_action', PATIENT_ACTIONS)),
    category: req(t.enum('patient_category', PATIENT_CATEGORIES)),
    type: req(t.enum('encounter_type', ENCOUNTER_TYPES)),
    // Kenkai's DiagnosisType.swift adds gynecologic.
    // What the encounter was about (hiv, pregnancy, mental_health, …) is health data.
    sub_type: req(t.enum('encounter_sub_type', ENCOUNTER_SUB_TYPES, { extensions: ['gynecologic'] }), { privacy: { class: 'health' } }),
    encounter_summary: req(t.object(encounterSummary)),
  },
};

const appointmentEvent: EventDef = {
  event: 'appointment',
  block: 'patient_mgmt',
  name: 'AppointmentProps',
  fields: {
    // causalfoundry/ios-sdk 1.1.4–1.1.8 send both inside the appointment item.
    patient_id: req(t.string, { client: { movedFrom: ['appointment.patient_id'] } }),
    site_id: req(t.string, { client: { movedFrom: ['appointment.site_id'] } }),
    action: req(t.enum('patient_action', PATIENT_ACTIONS)),
    appointment: req(t.object(appointmentItem)),
  },
};

/** Not in the spec: a diagnosis (an observation or result) within an encounter, as Kenkai sends it. */
const diagnosisEvent: EventDef = {
  event: 'diagnosis',
  block: 'patient_mgmt',
  name: 'DiagnosisProps',
  doc: 'A diagnosis recorded in an encounter (not in the spec; the Kenkai iOS client sends it)',
  origin: 'causalfoundry/ios-sdk Kenkai 1.0.0–1.0.1 (KenkaiSDKPatientMgmt DiagnosisEventObject.swift)',
  fields: {
    name: req(t.string, { doc: 'what was diagnosed or measured', privacy: { class: 'health' } }),
    encounter_id: req(t.string),
    patient_id: req(t.string),
    site_id: req(t.string),
    action: req(t.enum('patient_action', PATIENT_ACTIONS)),
    location: opt(t.string),
    category: req(t.string),
    type: req(t.string),
    sub_type: opt(t.string, { privacy: { class: 'health' } }),
    value: opt(t.string, { privacy: { class: 'health' } }),
    result: opt(t.string),
  },
};

export const patientMgmtEvents: EventDef[] = [patientEvent, encounterEvent, appointmentEvent, diagnosisEvent];
