import { CF, GENERATOR } from './clients';
import type { ClientQuirk } from './types';

/**
 * Quirks of the earlier form clients (see types.ts): causalfoundry/ios-sdk, the older
 * CausalFoundrySDKCore line, tags 0.4.3–1.2.3 (docs/clients/ios-older-and-utils.md; corpus
 * schemas/corpus/clients/ios-cf-*.json). Paths of sources are relative to that repository.
 */
export const earlierFormQuirks: readonly ClientQuirk[] = [
  // Envelope
  {
    rule: 'app_version_major_build',
    sends: '`app_info` as `version: "<major>.<build>"`, `version_code: <major>`, `version_name: "<build>"` (e.g. `"2.57"`, 2, `"57"`)',
    becomes: 'app_version as sent; app_version_code is the build number (the major version is not a version code)',
    clients: `${CF} 0.4.3–1.1.4`,
    source: 'CausalFoundrySDKCore/Sources/CFSetup.swift (getApplicationInfo)',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '1.1.4' }],
    otherwise: 'app_version_shape',
  },
  // Block and event names
  {
    rule: 'block_spelling',
    sends: '`block` spelled `e-commerce`, `e-learning`, or `chw_mgmt` (the 0.4.x patient management block)',
    becomes: 'the block of the event type (e_commerce, e_learning, patient_mgmt); one reading for every envelope form (normalize/block.ts)',
    clients: `${CF} 0.4.3–1.2.3 (chw_mgmt: 0.4.3–0.5.3); ${GENERATOR} (e-commerce, e-learning)`,
    source: 'CausalFoundrySDKCore/Sources/CFSetup.swift (track), EventTypes/ContentBlock.swift; generator src/synthetic/constants.py (BlockType)',
    gate: ['ios-cf', 'server-import'],
    otherwise: 'block_mismatch',
  },
  {
    rule: 'block_missing',
    sends: '`block: ""` (rate events built with CfLogRateEvent)',
    becomes: 'the block of the event type',
    clients: `${CF} 0.4.3–1.0.3`,
    source: 'CausalFoundrySDKCore/Sources/Builders/CfLogRateEvent.swift',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '1.0.3' }],
    otherwise: 'block_mismatch',
  },
  {
    rule: 'block_of_app',
    sends:
      'a core event (page, identity, app, search, media, rate, nudge_response, module_selection) with the app-level block (`e-commerce`, `e_commerce`, `loyalty`, `social`, …) or module_selection in `patient_mgmt`/`chw_mgmt`',
    becomes: 'stored in block core (the event type decides the block); a non-core event in another block stays a `block_mismatch` rejection',
    clients: `${CF} 0.4.3–1.2.3`,
    source:
      'CausalFoundrySDKCore/Sources/CFCoreEvent.swift (1.1.4+), Builders/CFLogAppEvent.swift (≤1.0.3), Nudge listener/Notifications/CFNotificationController.swift',
    gate: ['ios-cf'],
    otherwise: 'block_mismatch',
  },
  {
    rule: 'event_alias',
    sends: 'an event type under its own name: `identity` (identify), `schedule_delivery` (a delivery with action schedule/update)',
    becomes: 'the spec event (`sent_name` keeps the name as sent)',
    clients: `${CF} 0.4.3–1.2.3 (schedule_delivery: 0.4.3–0.5.3); ${GENERATOR} (schedule_delivery)`,
    source:
      'CausalFoundrySDKCore/Sources/EventTypes/CoreEventType.swift, CausalFoundrySDKEcom/Sources/EventTypes/EComEventType.swift (0.5.3); generator src/synthetic/event/log/commerce/schedule_delivery.py',
    gate: ['ios-cf', 'server-import'],
    otherwise: 'unknown_event',
  },
  {
    rule: 'event_spelling',
    sends: 'an event type as a Swift case name in camelCase (`moduleSelection`, `submitScreening`, `medicalReview`, `treatmentPlan`)',
    becomes: 'the snake_case event (`sent_name` keeps the name as sent)',
    clients: `${CF} 0.4.3–0.5.3`,
    source: 'CHWManagement/Sources/Enums/ChwMgmtEventType.swift (0.5.3)',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '0.5.3' }],
    otherwise: 'unknown_event',
  },
  {
    rule: 'empty_details',
    sends: 'nudge_response `details: ""` with every response but error',
    becomes: 'details absent (so `details_only_for_error` holds)',
    clients: `${CF} 0.4.3–1.2.3`,
    source: 'CausalFoundrySDKCore/Sources/Models/NudgeRepsonseObject.swift',
    gate: ['ios-cf'],
    otherwise: 'details_only_for_error',
  },
  {
    rule: 'default_applied',
    sends:
      'a required field its builder never writes: delivery `is_urgent` (0.4.x delivered; the generator’s delivered), schedule_delivery without a delivery `id`, chwsite records without `type`; the generator also: app `start_time` (close, resume, background), search `module`, nudge_response `time`',
    becomes:
      'is_urgent false; the delivery id is the order id; a chwsite is type community; start_time 0 (spec 6: 0 but for open); module `core` (the search’s block); the log’s `ts` (the time of the reaction)',
    clients: `${CF} 0.4.3–0.5.3 (delivery), 0.4.3–1.1.8 (chwsite); ${GENERATOR}`,
    source:
      'CausalFoundrySDKEcom/Sources/Models/EventObjetcs/DeliveryObject.swift, ScheduleDeliveryObject.swift (0.5.3); CausalFoundrySDKPatientMgmt/Sources/Catalog/CatalogModels/HcwSiteCatalogModel.swift; generator commerce/delivery.py, checkout.py, navigation/app.py, general/search.py, event/log/nudge/nudge_response.py',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '0.5.3' }, 'server-import'],
    otherwise: 'required',
  },
  {
    rule: 'type_coerced',
    sends:
      'a value of another JSON type: a number or boolean for a string field (diagnosis item `value`, e.g. age `46`); the generator: nudge_response `nudge_id` as a number, `response` as `{"action": …}`, drug `active_ingredients` as the text of a Python list (`"[\'a\', \'b\']"`)',
    becomes: 'the value as its JSON text (`"46"`); the action string; the list it prints (any other string is still rejected)',
    clients: `${CF} 1.1.4–1.2.3; ${GENERATOR}`,
    source:
      'CausalFoundrySDKPatientMgmt/Sources/Models/ItemObjects/DiagnosisItem.swift; generator event/log/nudge/nudge_response.py, utils/nudge_utils.py, event/catalog/drug_catalog.py',
    gate: [{ line: 'ios-cf', from: '1.1.4', to: '1.2.3' }, 'server-import'],
    otherwise: 'type',
  },
  // Property names
  {
    rule: 'property_spelling',
    sends: 'a field name in camelCase or upper case: `moduleId`, `regionState`, `isActive`, `siteIdsList`, `ATC_anatomical_group`, `OTC_or_ethical`',
    becomes: 'the snake_case field (module_id, region_state, …, atc_anatomical_group); any object, events and catalogs',
    clients: `${CF} 0.4.3–0.5.3 (camelCase), 0.4.3–1.2.3 (drug catalog)`,
    source:
      'Loyalty/Sources/event_models/LevelObject.swift (0.5.3), CHWManagement/Sources/Catalog/CatalogModels/InternalModels (0.5.3), CausalFoundrySDKEcom/Sources/Models/CatalogModels/DrugCatalogModel.swift',
    gate: ['ios-cf'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'property_moved',
    sends: 'appointment `patient_id` and `site_id` inside the appointment item instead of on the event',
    becomes: 'read as the event’s patient_id and site_id (the item keeps its copies as extras)',
    clients: `${CF} 1.1.4–1.1.8`,
    source: 'CausalFoundrySDKPatientMgmt/Sources/Models/ItemObjects/AppointmentItem.swift (1.1.8)',
    gate: [{ line: 'ios-cf', from: '1.1.4', to: '1.1.8' }],
    otherwise: 'client_quirk',
  },
  // Catalogs and uploads outside the spec
  {
    rule: 'catalog_kind_alias',
    sends: 'catalog subjects `chw` (healthcare workers) and `chwsite` (their sites)',
    becomes: 'the hcw and site catalogs',
    clients: `${CF} 0.4.3–0.5.3 (chw), 0.4.3–1.1.8 (chwsite)`,
    source: 'CHWManagement/Sources/Catalog (0.5.3), CausalFoundrySDKPatientMgmt/Sources/Catalog/PatientMgmtCatalogSubject.swift',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '1.1.8' }],
    otherwise: 'unknown_catalog_kind',
  },
  {
    rule: 'sdk_crash_item',
    sends: '`POST /v1/ingest/sdk/crash` with `{u_id, d_info, app_info, sdk, data: [{title, event_type, exception_type, exception_source, stack_trace, ts}]}`',
    becomes: 'one core `exception` event per item: time from its `ts`, no session, online false',
    clients: `${CF} 0.4.3–1.2.3`,
    source:
      'CausalFoundrySDKCore/Sources/Models/MainExceptionBody.swift, Utility/ExceptionManager.swift, Services/Networking/APIConstants.swift (ingestExceptionEvent)',
    gate: ['ios-cf'],
    otherwise: 'client_quirk',
  },
];
