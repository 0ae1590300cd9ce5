import { opt, req, t, type EventDef, type FieldDef } from '../dsl/types';

/**
 * The patient-management events of causalfoundry/ios-sdk 0.4.3–1.0.3 (CHWManagement, block chw_mgmt,
 * camelCase names in 0.4.x; CausalFoundrySDKPatientMgmt, block patient_mgmt, snake_case names in
 * 0.9.5–1.0.3), which the spec's patient/encounter/appointment replaced in 1.1.4.
 *
 * They are defined as they are, not mapped onto encounter: they are real behaviour data (a screening
 * done, a prescription written), but they do not carry what an encounter needs (action, sub_type, an
 * encounter summary with its id) and their own `type` is a patient type (door_to_door), not an
 * encounter type; prescription, investigation, treatment plan, counseling and lifestyle are parts of
 * an encounter, not encounters. A mapping would have to invent those values. So each is accepted as
 * sent, in block patient_mgmt, with the `event_not_in_spec` warning (EventDef.origin, as for every
 * event the spec lacks); the ids that tie them to a patient are required, the lists (whose item shapes
 * changed between versions and use camelCase keys in 0.4.x) are kept as JSON.
 */
const LEGACY = 'causalfoundry/ios-sdk 0.4.3–1.0.3';
const ORIGIN = `${LEGACY}, a patient-management event the spec replaced with patient, encounter and appointment (CHWManagement 0.4.x, CausalFoundrySDKPatientMgmt 0.9.5–1.0.3)`;

const list = (doc?: string): FieldDef => opt(t.array(t.any), doc ? { doc } : {});
const ids = { patient_id: req(t.string), site_id: req(t.string) };

const legacy = (event: string, name: string, doc: string, fields: Record<string, FieldDef>): EventDef => ({
  event,
  block: 'patient_mgmt',
  name,
  doc: `${doc} (legacy: ${LEGACY})`,
  origin: ORIGIN,
  fields: { ...ids, ...fields },
});

const diagnosisLists = {
  vitals_list: list('diagnosis items (value a number, string or boolean)'),
  diagnosis_values_list: list(),
  diagnosis_results_list: list(),
  diagnosis_symptoms_list: list(),
  diagnosis_questionnaire_list: list(),
  pregnancy_details: opt(t.any),
};

export const legacyPatientMgmtEvents: EventDef[] = [
  legacy('submit_screening', 'SubmitScreeningProps', 'A screening submitted', {
    category: opt(t.string),
    type: opt(t.string, { doc: 'a patient type, e.g. door_to_door' }),
    referred_for_assessment: opt(t.boolean),
    ...diagnosisLists,
  }),
  legacy('submit_assessment', 'SubmitAssessmentProps', 'An assessment submitted', {
    category: opt(t.string),
    type: opt(t.string),
    referred_for_assessment: opt(t.boolean),
    medication_adherence: opt(t.any, { doc: 'a string in 0.4.x, an object in 0.9.5+' }),
    ...diagnosisLists,
  }),
  legacy('submit_enrolment', 'SubmitEnrolmentProps', 'A patient enrolled', {
    action: opt(t.string),
    is_from_gho: opt(t.boolean),
    patient_status_list: list(),
    treatment_plan_list: list(),
    ...diagnosisLists,
  }),
  legacy('medical_review', 'MedicalReviewProps', 'A medical review submitted', { medical_review: opt(t.any, { doc: 'the review object as sent' }) }),
  legacy('treatment_plan', 'TreatmentPlanProps', 'A treatment plan set', { id: req(t.string), treatment_plan_list: list() }),
  legacy('prescription', 'PrescriptionProps', 'A prescription written', { id: req(t.string), prescription_list: list('0.4.x item keys are camelCase') }),
  legacy('investigation', 'InvestigationProps', 'Tests prescribed', { id: req(t.string), prescribed_tests_list: list() }),
  legacy('counseling', 'CounselingProps', 'A counseling plan set', { id: req(t.string), counseling_type: opt(t.string), counseling_plan_list: list() }),
  legacy('lifestyle', 'LifestyleProps', 'A lifestyle plan set (0.4.x only)', { id: req(t.string), lifestyle_plan_list: list() }),
];
