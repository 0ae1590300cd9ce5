/**
 * @evp/web-sdk: the platform's browser client library. Importing it has no side effects (safe in
 * server-side rendering); call init() in the browser.
 */
import { evp } from './instance';

export { evp };
export const {
  init,
  track,
  trackCustom,
  identify,
  catalog,
  flush,
  reset,
  setConsent,
  optOut,
  fetchActions,
  onAction,
  showInAppMessage,
  respond,
  status,
  register,
  unregister,
  setUserToken,
  onUserTokenExpired,
} = evp;
export { blockTracker, type BlockTracker } from './block';
export type { ActionResponse, Evp, IdentifyAction, Status } from './api';
export type { Action, ActionEvent, ActionQuery } from './core/actions';
export type { Consent, InitOptions, OutgoingEvent } from './core/options';
export type * from './generated/events';
