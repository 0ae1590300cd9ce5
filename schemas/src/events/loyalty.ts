import { is, requiredWhen } from '../dsl/rules';
import { opt, req, t, type EventDef } from '../dsl/types';
import { promoItem, redeem, survey, surveyResponse } from './objects';

/** Loyalty block events (spec 6, Loyalty). */
const levelEvent: EventDef = {
  event: 'level',
  block: 'loyalty',
  name: 'LevelProps',
  fields: {
    module_id: req(t.string, { doc: 'matters especially for e-learning', importMayOmit: 'a server-side import may report app-wide levels, tied to no module' }),
    new_level: req(t.int),
    prev_level: req(t.int),
  },
};

const milestoneEvent: EventDef = {
  event: 'milestone',
  block: 'loyalty',
  name: 'MilestoneProps',
  fields: { id: req(t.string), action: req(t.enum('milestone_action', ['achieved'])) },
};

const promoEvent: EventDef = {
  event: 'promo',
  block: 'loyalty',
  name: 'PromoProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('promo_action', ['view', 'apply'])),
    items: req(t.array(t.object(promoItem))),
    title: req(t.string),
    type: req(t.enum('promo_type', ['add_to_cart', 'coupon'])),
  },
};

/** The spec marks `response` R yet "only needed for submit": optional, with a rule for submit. */
const surveyEvent: EventDef = {
  event: 'survey',
  block: 'loyalty',
  name: 'SurveyProps',
  fields: {
    action: req(t.enum('survey_action', ['view', 'impression', 'start', 'submit'])),
    survey: req(t.object(survey)),
    response: opt(t.array(t.object(surveyResponse)), { doc: 'required for submit' }),
  },
  rules: [requiredWhen('response', is('action', 'submit'), 'response_for_submit', 'response is required when action is submit')],
};

const rewardEvent: EventDef = {
  event: 'reward',
  block: 'loyalty',
  name: 'RewardProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('reward_action', ['view', 'add', 'redeem'])),
    acc_points: opt(t.float, { doc: 'required for add' }),
    total_points: req(t.float, { doc: 'includes acc_points' }),
    redeem: opt(t.object(redeem), { doc: 'required for redeem' }),
    // Not in the property list, but a spec sample carries it.
    usd_rate: opt(t.double),
  },
  rules: [
    requiredWhen('acc_points', is('action', 'add'), 'acc_points_for_add', 'acc_points is required when action is add'),
    requiredWhen('redeem', is('action', 'redeem'), 'redeem_for_redeem', 'redeem is required when action is redeem'),
  ],
};

export const loyaltyEvents: EventDef[] = [levelEvent, milestoneEvent, promoEvent, surveyEvent, rewardEvent];
