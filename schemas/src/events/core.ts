import { opt, req, t, type EventDef } from '../dsl/types';
import { blockedObject, searchResult } from './shared-objects';

/** Core block events (spec 6, Core). */
const NUDGE_RESPONSES = ['open', 'discard', 'block', 'shown', 'expired', 'error'] as const;
const IDENTIFY_ACTIONS = ['register', 'login', 'logout', 'blocked', 'unblocked'] as const;
const SEARCH_MODULES = [
  'core',
  'e_commerce',
  'e_learning',
  'screening',
  'assessment',
  'enrolment',
  'medical_review',
  'my_patients',
  'appointments',
  'prescription',
  'lifestyle_mgmt',
  'psychological_mgmt',
  'counseling_mgmt',
  'investigation',
  'treatment_plan',
  'transfers',
  'other',
] as const;
const RATE_TYPES = [
  'order',
  'item',
  'media',
  'exam',
  'question',
  'module',
  'process',
  'form',
  'section',
  'app',
  'hcw',
  'hcw_site',
  'facility',
  'assessment',
  'customer',
  'other',
] as const;
const MODULE_SELECTION_TYPES = [
  'screening',
  'assessment',
  'enrolment',
  'medical_review',
  'my_patients',
  'prescription',
  'counseling_mgmt',
  'lifestyle_mgmt',
  'psychological_mgmt',
  'investigation',
  'appointment',
  'hcw_mgmt',
  'treatment_plan',
  'transfers',
  'break',
  'caller_history',
  'attend_call',
  'single',
  'dashboard',
  'map',
  'other',
] as const;

const appEvent: EventDef = {
  event: 'app',
  block: 'core',
  name: 'AppProps',
  doc: 'App lifecycle (tracked automatically)',
  fields: {
    action: req(t.enum('app_action', ['open', 'close', 'resume', 'background'])),
    start_time: req(t.int, {
      doc: 'ms to open and render the first screen; 0 for every action but open',
      min: 0,
      importMayOmit: 'measured on the device; a server-side import has no such measurement',
    }),
  },
};

const pageEvent: EventDef = {
  event: 'page',
  block: 'core',
  name: 'PageProps',
  doc: 'Screen or page view',
  fields: {
    path: req(t.string),
    title: req(t.string),
    duration: req(t.float, { doc: 'seconds on screen', min: 0 }),
    render_time: req(t.int, { doc: 'ms', min: 0, importMayOmit: 'measured on the device; a server-side import has no such measurement' }),
  },
};

const identifyEvent: EventDef = {
  event: 'identify',
  block: 'core',
  name: 'IdentifyProps',
  fields: {
    action: req(t.enum('identify_action', IDENTIFY_ACTIONS)),
    referral_code: opt(t.string),
    blocked: opt(t.object(blockedObject), { doc: 'used for blocked and unblocked' }),
  },
};

const mediaEvent: EventDef = {
  event: 'media',
  block: 'core',
  name: 'MediaProps',
  fields: {
    id: req(t.string),
    type: req(t.enum('media_type', ['video', 'audio', 'image'])),
    action: req(t.enum('media_action', ['view', 'play', 'pause', 'seek', 'finish', 'impression'])),
    time: req(t.int, { doc: 'current seek position in ms (0 for images)', min: 0 }),
  },
};

const searchEvent: EventDef = {
  event: 'search',
  block: 'core',
  name: 'SearchProps',
  fields: {
    query: req(t.string),
    module: req(t.enum('search_module', SEARCH_MODULES)),
    page: req(t.int, { doc: 'result page', default: 1, min: 1 }),
    filter: opt(t.map(t.any)),
    results_list: req(t.array(t.object(searchResult))),
  },
};

const rateEvent: EventDef = {
  event: 'rate',
  block: 'core',
  name: 'RateProps',
  fields: {
    rate_value: req(t.float, { min: 0, max: 5 }),
    // The synthetic data generator rates a shop item with the item's own type (generator.md, 9).
    type: req(t.enum('rate_type', RATE_TYPES, { aliases: { drug: 'item', blood: 'item', oxygen: 'item', medical_equipment: 'item' } })),
    subject_id: req(t.string),
  },
};

const nudgeResponseEvent: EventDef = {
  event: 'nudge_response',
  block: 'core',
  name: 'NudgeResponseProps',
  doc: 'The user reaction to an action; `action_response` is accepted as a newer name',
  fields: {
    ref: req(t.string, { doc: 'intervention reference given in the request' }),
    time: req(t.string, { doc: 'time value given in the request' }),
    response: req(t.enum('nudge_response', NUDGE_RESPONSES)),
    details: opt(t.string, { doc: 'only for response error' }),
  },
  rules: [
    (v) =>
      v.details !== undefined && v.response !== 'error'
        ? [{ path: 'details', rule: 'details_only_for_error', message: 'details is only allowed when response is error' }]
        : [],
  ],
};

const moduleSelectionEvent: EventDef = {
  event: 'module_selection',
  block: 'core',
  name: 'ModuleSelectionProps',
  fields: { type: req(t.enum('module_selection_type', MODULE_SELECTION_TYPES)) },
};

export const coreEvents: EventDef[] = [appEvent, pageEvent, identifyEvent, mediaEvent, searchEvent, rateEvent, nudgeResponseEvent, moduleSelectionEvent];
