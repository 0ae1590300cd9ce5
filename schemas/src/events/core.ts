import { problemWhen } from '../dsl/rules';
import { emptyDetails, leftOutBy } from '../dsl/client';
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
      client: {
        mayOmit: leftOutBy(
          'server-import',
          'it is measured on the device, and a server-side import has no such measurement (sent only for close, resume, background, as 0)',
        ),
      },
    }),
  },
  // The iOS SDK's lifecycle observer sends 0 for resume, background and close (every version).
  rules: [
    problemWhen('start_time', (v) => v.action !== 'open' && v.start_time !== 0, 'start_time_only_for_open', 'start_time must be 0 for every action but open'),
  ],
};

const pageEvent: EventDef = {
  event: 'page',
  block: 'core',
  name: 'PageProps',
  doc: 'Screen or page view',
  fields: {
    path: req(t.string),
    title: req(t.string),
    duration: req(t.float, {
      doc: 'seconds on screen',
      min: 0,
      client: { mayOmit: leftOutBy('ios-kenkai', 'the Kenkai iOS client never sends it (page events of CFViewController)') },
    }),
    render_time: req(t.int, {
      doc: 'ms',
      min: 0,
      client: { mayOmit: leftOutBy('server-import', 'it is measured on the device, and a server-side import has no such measurement') },
    }),
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
    // The Kenkai client names them after its model: media_id, seek_time (MediaObject.swift).
    id: req(t.string, { client: { aliases: ['media_id'] } }),
    type: req(t.enum('media_type', ['video', 'audio', 'image'])),
    action: req(t.enum('media_action', ['view', 'play', 'pause', 'seek', 'finish', 'impression'])),
    time: req(t.int, { doc: 'current seek position in ms (0 for images)', min: 0, client: { aliases: ['seek_time'] } }),
  },
  // The iOS SDK sets time to 0 for images before sending (every version); so does the data generator.
  rules: [problemWhen('time', (v) => v.type === 'image' && v.time !== 0, 'time_zero_for_image', 'time must be 0 for an image')],
};

const searchEvent: EventDef = {
  event: 'search',
  block: 'core',
  name: 'SearchProps',
  fields: {
    query: req(t.string),
    // Kenkai's ModuleType.swift (one enum for search and module_selection) has more values.
    module: req(t.enum('search_module', SEARCH_MODULES, { extensions: ['hcw_mgmt', 'break', 'caller_history', 'attend_call', 'single', 'dashboard', 'map'] })),
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
    time: req(t.string, {
      doc: 'time value given in the request; causalfoundry/ios-sdk sends the time of the reaction instead (UTC, no fraction)',
    }),
    response: req(t.enum('nudge_response', NUDGE_RESPONSES)),
    // causalfoundry/ios-sdk sends `details: ""` with every response but error.
    details: opt(t.string, { doc: 'only for response error', client: { unset: emptyDetails } }),
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
  fields: {
    // ModuleType: `appointments` for appointment (Kenkai; causalfoundry/ios-sdk 1.2.3), and the app's
    // blocks as modules (core, e_commerce, e_learning; Kenkai and causalfoundry/ios-sdk 1.2.2+).
    type: req(
      t.enum('module_selection_type', MODULE_SELECTION_TYPES, { aliases: { appointments: 'appointment' }, extensions: ['core', 'e_commerce', 'e_learning'] }),
    ),
  },
};

/**
 * The platform's app-defined event, open to every client (docs/data-contract.md, "App-defined
 * events"): the spec lists fixed event types, yet every app has events of its own, and a platform
 * that refused them would push apps to misuse a spec type. Sent as `custom` with the app's name in
 * ctx `name` (what the web library's `trackCustom` sends) it is a platform event like any other: no
 * warning. Kenkai's `track(eventName:property:meta:)` sends the app's name as the event name and
 * repeats it in ctx `name`; that spelling is a client quirk (`custom_event`, gated to Kenkai and
 * Unity, events/client-variants.ts). The name as sent is in `sent_name`, the app's own values are
 * kept as extras.
 */
const customEvent: EventDef = {
  event: 'custom',
  block: 'core',
  name: 'CustomProps',
  doc: 'An app-defined event (not in the spec): the app names it and adds its own values',
  fields: {
    name: req(t.string, { doc: 'the event name the app chose' }),
    property: opt(t.string),
  },
};

/**
 * An exception a client library reports about itself (not in the spec; client diagnostics rather
 * than behaviour). causalfoundry/ios-sdk 0.4.3–1.2.3 upload them to `POST /v1/ingest/sdk/crash`, each
 * item becoming one exception event (normalize/crash.ts); the Kenkai line logs an ordinary
 * `exception` event with the same fields (property `<event type>_failed`).
 */
const exceptionEvent: EventDef = {
  event: 'exception',
  block: 'core',
  name: 'ExceptionProps',
  doc: 'An error the client library met: an event it refused to send, or a request that failed',
  fields: {
    title: req(t.string, { doc: 'what failed, e.g. "Invalid CurrencyCode provided", or "<status or -1>: nil" for a failed request' }),
    event_type: opt(t.string, { doc: 'the event type being logged, or the URL of the failed request' }),
    exception_type: opt(t.string, { doc: 'a Java-style class name: IllegalArgumentException, NullPointerException, …' }),
    exception_source: opt(t.string, { doc: 'SDK' }),
    stack_trace: opt(t.string, { doc: 'the error text the client has (iOS: a localizedDescription, not a stack)' }),
    ts: opt(t.string, { doc: 'when it happened, device-local with offset, as sent (a crash upload item’s event time)' }),
  },
};

export const coreEvents: EventDef[] = [
  appEvent,
  pageEvent,
  identifyEvent,
  mediaEvent,
  searchEvent,
  rateEvent,
  nudgeResponseEvent,
  moduleSelectionEvent,
  customEvent,
  exceptionEvent,
];
