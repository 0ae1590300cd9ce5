export { createPrivacyService, type PrivacyService } from './service';
export { startPrivacyProcessor } from './processor';
export { usersBeingErased } from './store';
export { parseErasureBody, parseExportBody, ERASURE_MAX_IDS } from './requests';
export { ERASURE_STATES, EXPORT_STATES, type ErasureRequest, type ExportRequest, type Suppression } from './model';
export { suppressionLog } from './publish';
