import { CF, GENERATOR, KENKAI, KENKAI_AND_UNITY } from './clients';
import type { ClientQuirk } from './types';

/**
 * Quirks both iOS lines share (see types.ts): the older CausalFoundrySDKCore line in the earlier form
 * (docs/clients/ios-older-and-utils.md) and Kenkai in the current form (docs/clients/kenkai-ios-and-unity.md),
 * each normalised in one place for both forms.
 */
export const iosLinesQuirks: readonly ClientQuirk[] = [
  {
    rule: 'sdk_wrapper',
    sends: '`sdk` prefixed by a cross-platform wrapper: `rn/ios/<version>` (React Native)',
    becomes: 'sdk_name and sdk_version of the native library (`ios`, `<version>`); the wrapper kept in `client.sdk_wrapper`',
    clients: `${CF} 0.4.6–1.2.3 and ${KENKAI}, with setUsageForReactNative()`,
    source: 'CausalFoundrySDKCore/Sources/Core.swift, KenkaiSDKCore Core.swift:52 (setUsageForReactNative)',
    gate: [{ line: 'ios-cf', from: '0.4.6', to: '1.2.3' }, 'ios-kenkai'],
    otherwise: 'sdk_shape',
  },
  {
    rule: 'session_end_before_start',
    sends:
      '`s_id` whose end part is smaller than its start part (the end of the last background, kept while a resume resets the start; Kenkai builds s_id at upload time from both)',
    becomes: 'session_start from s_id, session_end null (it ends an earlier session); s_id kept as sent',
    clients: `${CF} 0.4.3–1.2.3; ${KENKAI_AND_UNITY}`,
    source:
      'CausalFoundrySDKCore/Sources/CFSetup.swift (setup), Services/APIHandler/AppLifecycleObserver.swift; KenkaiSDKCore IngestAPIHandler.swift:70, AppLifecycleObserver.swift',
    gate: ['ios-cf', 'ios-kenkai', 'unity-ios'],
    otherwise: 'session_id_shape',
  },
  {
    rule: 'property_alias',
    sends:
      "its own name for a field. Older line: patient/encounter `id` (patient_id), encounter summary `prev_diagnosis_status`, `diagnosis_status`, `main_complaints`, diagnostic elements `treatment_adherence`, `health_questionnaires`; delivery `delivery_ts`; catalogs `has_whatsapp`, `site_ids_list`, `parent_site_id`. Kenkai (its models' names): media `media_id`/`seek_time`, question/exam/module/milestone `<x>_id`, cart `cart_id`, patient `id`, patient catalog `has_whatsapp`. The generator: delivery `delivery_ts`, nudge_response `nudge_id` (ref), user catalog `organization` (organization_name)",
    becomes:
      'the spec field (patient_id, prev_diagnosis_status_list, …, est_delivery_ts, has_chatapp, site_id_list, parent_id; media id and time, …; ref, organization_name) when the spec name is not sent too (otherwise the client name stays an extra)',
    clients: `${CF} 0.4.3–1.1.8; ${KENKAI}; ${GENERATOR}`,
    source:
      'CausalFoundrySDKPatientMgmt/Sources/Models (1.1.8), Catalog/CatalogModels/PatientCatalogModel.swift, HcwCatalogModel.swift, HcwSiteCatalogModel.swift; Kenkai MediaObject.swift, QuestionObject.swift, ExamObject.swift, ModuleObject.swift, MilestoneObject.swift, CartObject.swift, PatientEventObject.swift, PatientCatalogModel.swift; generator commerce/schedule_delivery.py, event/log/nudge/nudge_response.py, event/catalog/user_catalog.py',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '1.1.8' }, 'ios-kenkai', 'server-import'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'required_missing',
    sends:
      'events without a property the spec requires. Both lines: exam `score`/`is_passed` (only with result) and `duration` (only with submit), question `answer_id` (not for skip), payment `usd_rate` (never). Kenkai also: page `duration`, cart `cart_price`, patient `category`, search result `type`, cancel item `type`, survey response `id`, appointment update/missed `id`, level `module_id`. The generator (a server-side import): app `start_time` (open), page `render_time` (device measurements), level `module_id`, exam fields by step as above',
    becomes:
      'accepted without it (the field is nullable) for the clients that leave it out: earlier-form events, current-form events of the flattening client and flat-form (server-side import) events; every other client is still held to `required`',
    clients: `${CF} 0.4.3–1.2.3; ${KENKAI}; ${GENERATOR}`,
    source:
      'CausalFoundrySDKElearn/Sources/Models/ExamObject.swift, QuestionObject.swift; CausalFoundrySDKPayments/Sources/Models/EventObjects; the Kenkai event models (EventObjects/*.swift), CFViewController.swift; generator navigation/app.py, general/page.py, event/log/generator.py (level), learning/exam.py',
    gate: ['ios-cf', 'ios-kenkai', 'unity-ios', 'server-import'],
    otherwise: 'required',
  },
  {
    rule: 'epoch_zero_time',
    sends:
      'delivery `est_delivery_ts` as the epoch in device time (`1970-01-01T05:00:00.000+05:00`) when the app set none (the default 0 of the delivery time, formatted)',
    becomes: 'est_delivery_ts absent',
    clients: `${CF} 0.4.3–1.2.3; ${KENKAI}`,
    source: 'CausalFoundrySDKEcom/Sources/Models/EventObjetcs/DeliveryObject.swift; KenkaiSDKEcom DeliveryObject.swift (init deliveryTs: Int64 = 0)',
    gate: ['ios-cf', 'ios-kenkai'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'unset_value',
    sends:
      '`0` for a number it has no value for: user catalog `birth_year` (Kenkai: `"0"` in the dimensions upload), item_info `production_date`/`expiry_date`',
    becomes: 'the field is absent',
    clients: `${CF} 0.9.5–1.2.3 (birth_year), 0.4.3–1.2.3 (item_info dates); ${KENKAI} (birth_year)`,
    source:
      'CausalFoundrySDKCore/Sources/Models/Catalog/UserCatalogModel.swift, CausalFoundrySDKEcom/Sources/Models/ItemObjects/ItemInfoModel.swift; KenkaiSDKCore Models/Catalog/UserCatalogModel.swift:56',
    gate: ['ios-cf', 'ios-kenkai'],
    otherwise: 'client_quirk',
  },
  {
    rule: 'event_not_in_spec',
    sends:
      'an event the spec does not define. Kenkai: `diagnosis` (patient management). The older line (0.4.3–1.0.3): the patient-management events the spec replaced — submit_screening, submit_assessment, submit_enrolment, medical_review, treatment_plan, prescription, investigation, counseling, lifestyle',
    becomes:
      'accepted under its own definition, from the client model, in its block (the legacy events: patient_mgmt, ids required, lists kept as JSON, not mapped onto encounter)',
    clients: `${CF} 0.4.3–1.0.3; ${KENKAI}`,
    source:
      'CHWManagement/Sources (0.4.3–0.5.3), CausalFoundrySDKPatientMgmt/Sources/Models/EventObjects (0.9.5–1.0.3); KenkaiSDKPatientMgmt Models/EventObjects/DiagnosisEventObject.swift',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '1.0.3' }, 'ios-kenkai'],
    otherwise: 'unknown_event',
  },
];
