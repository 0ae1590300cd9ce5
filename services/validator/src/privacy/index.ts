export { applyCatalogPrivacy, applyEventPrivacy, type PrivacyTally } from './apply';
