import { asWarning, is, problemWhen, requiredWhen } from '../dsl/rules';
import { leftOutBy } from '../dsl/client';
import { opt, req, t, type EventDef } from '../dsl/types';
import { promoItem, redeem, survey, surveyResponse } from './objects';

/** Loyalty block events (spec 6, Loyalty). */
const levelEvent: EventDef = {
  event: 'level',
  block: 'loyalty',
  name: 'LevelProps',
  fields: {
    module_id: req(t.string, {
      doc: 'matters especially for e-learning',
      client: {
        mayOmit: leftOutBy(
          ['ios-kenkai', 'server-import'],
          'the Kenkai iOS client leaves it out when the app gives none, and a server-side import may report app-wide levels, tied to no module',
        ),
      },
    }),
    new_level: req(t.int, { min: 0 }),
    prev_level: req(t.int, { min: 0 }),
  },
};

const milestoneEvent: EventDef = {
  event: 'milestone',
  block: 'loyalty',
  name: 'MilestoneProps',
  // The Kenkai client sends the id as milestone_id (MilestoneObject.swift).
  fields: { id: req(t.string, { client: { aliases: ['milestone_id'] } }), action: req(t.enum('milestone_action', ['achieved'], { extensions: ['other'] })) },
};

const promoEvent: EventDef = {
  event: 'promo',
  block: 'loyalty',
  name: 'PromoProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('promo_action', ['view', 'apply'], { extensions: ['other'] })),
    items: req(t.array(t.object(promoItem))),
    title: req(t.string),
    type: req(t.enum('promo_type', ['add_to_cart', 'coupon'], { extensions: ['other'] })),
  },
};

/** The spec marks `response` R yet "only needed for submit": optional, with a rule for submit. */
const surveyEvent: EventDef = {
  event: 'survey',
  block: 'loyalty',
  name: 'SurveyProps',
  fields: {
    action: req(t.enum('survey_action', ['view', 'impression', 'start', 'submit'], { extensions: ['other'] })),
    survey: req(t.object(survey)),
    response: opt(t.array(t.object(surveyResponse)), { doc: 'required for submit' }),
  },
  rules: [requiredWhen('response', is('action', 'submit'), 'response_for_submit', 'response is required when action is submit')],
};

/** total_points includes acc_points, so it cannot be below it. */
const pointsBelowAcc = (v: Record<string, unknown>) => typeof v.acc_points === 'number' && typeof v.total_points === 'number' && v.total_points < v.acc_points;

const rewardEvent: EventDef = {
  event: 'reward',
  block: 'loyalty',
  name: 'RewardProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('reward_action', ['view', 'add', 'redeem'], { extensions: ['other'] })),
    acc_points: opt(t.float, { doc: 'required for add', min: 0 }),
    total_points: req(t.float, { doc: 'includes acc_points', min: 0 }),
    redeem: opt(t.object(redeem), { doc: 'required for redeem' }),
    // Not in the property list, but a spec sample carries it.
    usd_rate: opt(t.double, { min: 0 }),
  },
  rules: [
    requiredWhen('acc_points', is('action', 'add'), 'acc_points_for_add', 'acc_points is required when action is add'),
    requiredWhen('redeem', is('action', 'redeem'), 'redeem_for_redeem', 'redeem is required when action is redeem'),
    problemWhen(
      'total_points',
      (v) => pointsBelowAcc(v) && v.total_points !== 0,
      'total_points_below_acc_points',
      'total_points includes acc_points, so it cannot be below it',
    ),
    // RewardEventObject(totalPoints: Float = 0.0): the iOS SDK sends 0 when the app gives no total.
    asWarning(
      problemWhen(
        'total_points',
        (v) => pointsBelowAcc(v) && v.total_points === 0,
        'total_points_zero_default',
        'total_points 0 is below acc_points; accepted as a known client quirk: the iOS SDK (CausalFoundrySDKCore 1.2.3, KenkaiSDK 1.0.1) sends 0 when the app gives no total',
      ),
    ),
  ],
};

export const loyaltyEvents: EventDef[] = [levelEvent, milestoneEvent, promoEvent, surveyEvent, rewardEvent];
