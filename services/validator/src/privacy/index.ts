export { applyCatalogPrivacy, applyEventPrivacy } from './apply';
