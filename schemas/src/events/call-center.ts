import { opt, req, t, type EventDef } from '../dsl/types';
import { contactDetails, qualityTraits, transfer } from './objects';

/** Call center block events (spec 6, Call center). */
const CONTACT_ACTIONS = [
  'view',
  'add',
  'update',
  'remove',
  'start',
  'end',
  'pause',
  'resume',
  'attend',
  'decline',
  'terminate',
  'transfer',
  'skip',
  'other',
] as const;

const breakEvent: EventDef = {
  event: 'break',
  block: 'call_center',
  name: 'BreakProps',
  fields: {
    type: req(t.enum('break_type', ['bio_break', 'feedback', 'meeting', 'meal', 'tea', 'other'])),
    sub_type: opt(t.string),
    action: req(t.enum('break_action', ['view', 'start', 'end', 'pause', 'resume', 'other'])),
    total_time: req(t.float, { doc: 'seconds allotted', min: 0 }),
    consumed_time: req(t.float, { doc: 'seconds used', min: 0 }),
  },
};

const contactEvent: EventDef = {
  event: 'contact',
  block: 'call_center',
  name: 'ContactProps',
  fields: {
    action: req(t.enum('contact_action', CONTACT_ACTIONS)),
    details: req(t.object(contactDetails)),
    transfer: opt(t.object(transfer)),
  },
};

const opsScorecardEvent: EventDef = {
  event: 'ops_scorecard',
  block: 'call_center',
  name: 'OpsScorecardProps',
  fields: { quality_traits: req(t.object(qualityTraits)) },
};

export const callCenterEvents: EventDef[] = [breakEvent, contactEvent, opsScorecardEvent];
