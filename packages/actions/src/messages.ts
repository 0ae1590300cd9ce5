import { isFeedbackEventName, type OutgoingMessage } from '@evp/core';
import { ACTION_RESPONSES, type ActionFeedback, type ActionResponse, type NewAction } from './model';

/** The action log `source` of actions created through the HTTP API, and of `actions.requested` messages naming none. */
export const ACTION_SOURCES = { api: 'api', requested: 'actions.requested' } as const;
import { parseRef } from './records';

/**
 * Message contracts around the action store:
 * - `actions.requested` (campaign services → action store): JSON `{app_id, actions:[...]}`, each
 *   action as for POST /v1/actions but with both inv_id and action_id, so a redelivered message
 *   cannot create anything twice. Key `<app_id>`, header `app_id`. An optional `source` (1–128
 *   characters, e.g. `campaign:42`) is kept in the action log's created entries.
 * - `actions.feedback` `nudge_response` (client → validator → action store; a copy of the `events.core` event): `props.ref` is the `internal.ref` the
 *   pull returned (`<inv_id>:<action_id>`), `props.response` the reaction.
 */
export function actionRequestMessage(
  appId: string,
  actions: (NewAction & { inv_id: number; action_id: number })[],
  opts: { source?: string } = {},
): OutgoingMessage {
  return {
    key: appId,
    value: Buffer.from(JSON.stringify({ app_id: appId, ...(opts.source === undefined ? {} : { source: opts.source }), actions })),
    headers: { app_id: appId },
  };
}

/** The fields of a canonical event (see @evp/schemas CanonicalEvent) that feedback needs. */
export interface FeedbackEventLike {
  app_id: string;
  user_id: string;
  name: string;
  props: Record<string, unknown>;
}

export type FeedbackFromEvent =
  { kind: 'feedback'; appId: string; feedback: ActionFeedback } | { kind: 'ignored' } | { kind: 'unknown'; ref: string } | { kind: 'invalid'; reason: string };

/**
 * Turns a decoded event into feedback; other events are `ignored`. A response whose `ref` is a string
 * but not of the platform's shape (`<inv_id>:<action_id>`) names a nudge the platform never issued —
 * the synthetic data generator answers nudges it invents, with ids such as `-4611686018427387904` — so
 * it is `unknown`, like a well-shaped ref no action has (ActionStore.recordFeedback): counted, not an
 * error. Only a response without a string ref or with a response outside the list is `invalid` (the
 * validator rejects such events, so one here is a bug upstream).
 */
export function feedbackFromEvent(e: FeedbackEventLike): FeedbackFromEvent {
  if (!isFeedbackEventName(e.name)) return { kind: 'ignored' };
  if (typeof e.props.ref !== 'string') return { kind: 'invalid', reason: `ref ${JSON.stringify(e.props.ref)} is not a string` };
  const ref = parseRef(e.props.ref);
  if (!ref) return { kind: 'unknown', ref: e.props.ref };
  const response = e.props.response;
  if (typeof response !== 'string' || !(ACTION_RESPONSES as readonly string[]).includes(response)) {
    return { kind: 'invalid', reason: `response ${JSON.stringify(response)} is not one of ${ACTION_RESPONSES.join(', ')}` };
  }
  const feedback: ActionFeedback = { user_id: e.user_id, inv_id: ref.inv_id, action_id: ref.action_id, response: response as ActionResponse };
  if (typeof e.props.details === 'string') feedback.details = e.props.details;
  return { kind: 'feedback', appId: e.app_id, feedback };
}
