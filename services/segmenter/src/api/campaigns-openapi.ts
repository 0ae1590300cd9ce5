import { closedObject, jsonRequestBody, jsonResponse, keyed, nullable, pathParam, ref, type OpenApiOperation, type OpenApiPaths } from '@evp/http';
import { resourceErrors } from './resource-errors-openapi';
import { CAMPAIGN_STATES, TRIGGER_MAX_USERS } from '../campaigns';
import { CAMPAIGN_BODY_LIMIT } from './campaigns';
import { hourly, hoursParam } from './console-openapi';

/** The campaigns API's part of the segmenter's OpenAPI fragment (campaigns.ts; docs/campaigns.md#api). */

const time = { type: 'string', format: 'date-time' };
const campaignId = pathParam('campaign_id', { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }, 'The campaign’s `id`.');

const errors = resourceErrors({ resource: 'campaign', invalidCode: 'invalid_campaign', bodyLimitBytes: CAMPAIGN_BODY_LIMIT });

/** One group's counts in a report (docs/campaigns.md#report defines each). */
const count = { type: 'integer', minimum: 0 };
const interval = {
  type: ['array', 'null'],
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '[low, high]; null when it cannot be estimated.',
};
const groupProperties = {
  audience: count,
  runs: count,
  requested: count,
  skipped: closedObject(['total', 'reasons'], { total: count, reasons: { type: 'object', additionalProperties: count, description: 'Skips by reason.' } }),
  created: count,
  delivered: count,
  withdrawn: count,
  expired: count,
  responses: closedObject(['shown', 'open', 'discard', 'block', 'error', 'expired'], {
    shown: count,
    open: count,
    discard: count,
    block: count,
    error: count,
    expired: count,
  }),
  users_blocked: { ...count, description: 'Users with a `block` response to one of the group’s actions (the guardrails’ count).' },
  users_discarded: { ...count, description: 'Users with a `discard` response to one of the group’s actions.' },
  converted: nullable('integer', { minimum: 0, description: 'null without a goal.' }),
  conversion_rate: nullable('number', { minimum: 0, maximum: 1, description: 'converted / audience; null without a goal or audience.' }),
  attribution_open: nullable('integer', { minimum: 0, description: 'Users whose attribution window is still open; null without a goal.' }),
  matured: nullable('integer', { minimum: 0, description: 'Users all of whose windows have closed (the readings’ users); null without a goal.' }),
  matured_converted: nullable('integer', { minimum: 0, description: 'Of the matured users, those converted; null without a goal.' }),
};
const GROUP_FIELDS = Object.keys(groupProperties);

const op = (summary: string, description: string, rest: Omit<OpenApiOperation, 'summary' | 'security'>): OpenApiOperation => ({
  summary,
  description,
  security: keyed('api').security,
  ...rest,
});

const documentBody = jsonRequestBody(ref('CampaignDocument'), 'A campaign document.');
const stateConflict = 'The campaign’s state refuses this (docs/campaigns.md#states); `details.state` is the state.';

const command = (name: 'pause' | 'resume' | 'end', description: string) => ({
  post: op(`${name[0]?.toUpperCase()}${name.slice(1)} a campaign`, `${description} Repeating it in the state it leads to changes nothing (no new version).`, {
    operationId: `${name}Campaign`,
    parameters: [campaignId],
    responses: {
      '200': jsonResponse('The campaign in its new state.', ref('Campaign')),
      ...errors({ notFound: true, conflict: stateConflict, badRequest: '`campaign_id` is malformed.' }),
    },
  }),
});

export function campaignPaths(): OpenApiPaths {
  return {
    '/v1/campaigns': {
      post: op(
        'Create a campaign',
        'Validated against the campaign rules, the app’s saved segments and the data contract; saved as version 1 in state `draft`.',
        {
          operationId: 'createCampaign',
          requestBody: documentBody,
          responses: {
            '201': jsonResponse('The saved campaign.', ref('Campaign')),
            ...errors({ body: 'document', badRequest: 'The document is invalid.' }),
          },
        },
      ),
      get: op('The app’s campaigns', 'Every campaign of the key’s app, whatever its state, by creation.', {
        operationId: 'listCampaigns',
        responses: {
          '200': jsonResponse('The campaigns.', closedObject(['data'], { data: { type: 'array', items: ref('Campaign') } })),
          ...errors({ badRequest: 'Not answered by this route.' }),
        },
      }),
    },
    '/v1/campaigns/preview': {
      post: op(
        'Preview a campaign for one user',
        'The action the campaign would request for the user now — assigned to control or a variant, its templates rendered with the user’s data and catalog records — or why it would request none. Nothing is saved or sent.',
        {
          operationId: 'previewCampaign',
          requestBody: jsonRequestBody(
            closedObject(['campaign', 'user_id'], {
              campaign: {
                oneOf: [ref('CampaignDocument'), { type: 'string', description: 'The id of a saved campaign of the app.' }],
                description: 'A document (validated, not saved; assigned as if its id were `preview`) or the id of a saved campaign.',
              },
              user_id: { type: 'string', minLength: 1, maxLength: 256 },
              event: { type: 'object', description: 'The triggering event’s properties (`event` of the templates), for a campaign with an event trigger.' },
            }),
            'The campaign and the user.',
          ),
          responses: {
            '200': jsonResponse('What the campaign would do for the user.', ref('CampaignPreview')),
            ...errors({
              body: 'document',
              notFound: true,
              badRequest:
                'The document is invalid (paths under `$.campaign`), `user_id` is missing, or `event` is not an object or given for a campaign without an event trigger.',
            }),
          },
        },
      ),
    },
    '/v1/campaigns/activity': {
      get: op(
        'Actions created per campaign per hour',
        'For each of the app’s campaigns, the actions created per hour (action log `created` entries of the runs the campaign requested). Hours with none are left out. Drawn by the console’s campaign list (docs/console.md).',
        {
          operationId: 'getCampaignActivity',
          parameters: [hoursParam],
          responses: {
            '200': jsonResponse(
              'Per campaign and hour, actions created.',
              hourly({ campaign_id: { type: 'string' }, created: { type: 'integer', minimum: 0 } }),
            ),
            ...errors({ badRequest: '`hours` is out of range.' }),
          },
        },
      ),
    },
    '/v1/campaigns/settings': {
      get: op('The app’s campaign settings', 'Across all the app’s campaigns; the defaults until set.', {
        operationId: 'getCampaignSettings',
        responses: { '200': jsonResponse('The settings.', ref('CampaignSettings')), ...errors({ badRequest: 'Not answered by this route.' }) },
      }),
      put: op('Replace the app’s campaign settings', 'Keys left out take their defaults.', {
        operationId: 'replaceCampaignSettings',
        requestBody: jsonRequestBody(ref('CampaignSettings'), 'The settings.'),
        responses: {
          '200': jsonResponse('The saved settings.', ref('CampaignSettings')),
          ...errors({ body: 'document', badRequest: 'The settings are invalid.' }),
        },
      }),
    },
    '/v1/campaigns/{campaign_id}': {
      get: op('One campaign', 'The campaign’s latest version.', {
        operationId: 'getCampaign',
        parameters: [campaignId],
        responses: { '200': jsonResponse('The campaign.', ref('Campaign')), ...errors({ notFound: true, badRequest: '`campaign_id` is malformed.' }) },
      }),
      put: op(
        'Replace a campaign’s document',
        'Only while the campaign is `draft` or `paused`; bumps the version. The action ids stay those of the variants by position.',
        {
          operationId: 'replaceCampaign',
          parameters: [campaignId],
          requestBody: documentBody,
          responses: {
            '200': jsonResponse('The campaign, version + 1.', ref('Campaign')),
            ...errors({
              body: 'document',
              notFound: true,
              conflict: 'The campaign is `active` (pause it first) or `ended`; `details.state` is the state.',
              badRequest: 'The document is invalid, or `campaign_id` is malformed.',
            }),
          },
        },
      ),
    },
    '/v1/campaigns/{campaign_id}/pause': command('pause', 'An active campaign stops acting on triggers.'),
    '/v1/campaigns/{campaign_id}/resume': command('resume', 'A draft or paused campaign becomes active.'),
    '/v1/campaigns/{campaign_id}/end': command('end', 'Final: an ended campaign stays ended.'),
    '/v1/campaigns/{campaign_id}/trigger': {
      post: op(
        'Trigger an API campaign for users',
        'One run of an active campaign with an `{"api": true}` trigger, for these users (duplicates counted once); answered once the run is durable.',
        {
          operationId: 'triggerCampaign',
          parameters: [campaignId],
          requestBody: jsonRequestBody(
            closedObject(['user_ids'], {
              user_ids: { type: 'array', minItems: 1, maxItems: TRIGGER_MAX_USERS, items: { type: 'string', minLength: 1, maxLength: 256 } },
            }),
            'The users.',
          ),
          responses: {
            '202': jsonResponse(
              'The run is accepted: its actions follow (docs/campaigns.md, "Triggers and delivery").',
              closedObject(['inv_id', 'users'], {
                inv_id: { type: 'integer', minimum: 1, description: 'The run’s `inv_id`: the actions’ and the report’s.' },
                users: { type: 'integer', minimum: 1, description: 'Distinct users of the run.' },
              }),
            ),
            ...errors({
              body: 'plain',
              notFound: true,
              conflict: 'The campaign is not `active`, the time is outside its `[start_at, end_at)`, or its trigger is not `api`.',
              badRequest: '`user_ids` is not an array of 1–10,000 user ids of 1–256 characters, or `campaign_id` is malformed.',
              notEnabled: true,
            }),
          },
        },
      ),
    },
    '/v1/campaigns/{campaign_id}/report': {
      get: op('A campaign’s report', 'Per variant and for control, with uplift against control (docs/campaigns.md#report).', {
        operationId: 'getCampaignReport',
        parameters: [campaignId],
        responses: {
          '200': jsonResponse('The report.', ref('CampaignReport')),
          ...errors({ notFound: true, badRequest: '`campaign_id` is malformed.', notEnabled: true }),
        },
      }),
    },
  };
}

const previewAction = {
  type: 'object',
  description:
    'The action as `POST /v1/actions` would take it, less `inv_id` (a preview is no run); `action_id` is the variant’s when the campaign is saved. `expired_at` counts `expires_after` from now.',
  required: ['user_id', 'type', 'render_method', 'delivery_mode', 'content', 'attr', 'tags', 'expired_at'],
  properties: {
    user_id: { type: 'string' },
    type: { type: 'string' },
    render_method: { type: 'string' },
    delivery_mode: { type: 'string' },
    content: closedObject(['title', 'body'], { title: { type: 'string' }, body: { type: 'string' } }),
    attr: { type: 'object', additionalProperties: { type: 'string' } },
    tags: { type: 'array', items: { type: 'string' } },
    expired_at: time,
    action_id: { type: 'integer', minimum: 1 },
  },
};

/** A reading of the report: its name and what it says in words, beside its numbers (campaigns/readings.ts). */
const reading = (fields: Record<string, object>, description: string) =>
  closedObject(['name', 'explanation', ...Object.keys(fields)], { name: { type: 'string' }, explanation: { type: 'string' }, ...fields }, description);
const probability = { type: 'number', minimum: 0, maximum: 1 };
const fixedInterval = { ...interval, type: 'array' };
const upliftReading = {
  estimate: { type: 'number', description: 'p_v − p_c.' },
  ci: interval,
  p_value: nullable('number'),
  p_value_adjusted: nullable('number', { description: 'Holm-adjusted across the report’s variants.' }),
  significant: { type: 'boolean' },
};
const srmReading = reading(
  {
    groups: { type: 'array', items: { type: 'string' } },
    observed: { type: 'array', items: count },
    expected: { type: 'array', items: { type: 'number' } },
    chi_square: { type: 'number', minimum: 0 },
    df: { type: 'integer', minimum: 1 },
    p_value: probability,
    threshold: probability,
    mismatch: { type: 'boolean' },
    warning: nullable('string', { description: 'Set on a mismatch.' }),
    expected_from: { enum: ['document history', 'current document'] },
    periods: {
      description: 'With the split history: each period between edits of the split and the users first assigned in it; null without.',
      oneOf: [
        { type: 'null' },
        {
          type: 'array',
          items: closedObject(['from', 'holdout', 'weights', 'users'], {
            from: time,
            holdout: { type: 'number', minimum: 0, maximum: 1 },
            weights: { type: 'array', items: { type: 'number' } },
            users: count,
          }),
        },
      ],
    },
  },
  'The sample-ratio check: group sizes against the document’s holdout and weights (per edit period with the split history).',
);
const guardrail = closedObject(['users', 'rate', 'reference_rate', 'difference', 'p_value', 'breach'], {
  users: count,
  rate: nullable('number', { minimum: 0, maximum: 1, description: 'users / audience; null without an audience.' }),
  reference_rate: nullable('number', { minimum: 0, maximum: 1, description: 'The other variants’ pooled rate; null without another variant.' }),
  difference: nullable('number'),
  p_value: nullable('number', { minimum: 0, maximum: 1, description: 'One-sided, for a higher rate than the reference.' }),
  breach: { type: 'boolean', description: 'p_value < alpha.' },
});
const variantReadings = closedObject(
  ['primary', 'sequential', 'fixed_horizon', 'relative', 'bayes', 'power', 'value', 'cuped'],
  {
    primary: { enum: ['sequential', 'fixed_horizon'] },
    sequential: reading({ ...upliftReading, tuning_users: { type: 'integer', minimum: 1 } }, 'Always-valid interval and p-value.'),
    fixed_horizon: reading({ ...upliftReading, newcombe_ci: fixedInterval }, 'Agresti–Caffo interval, valid read once.'),
    relative: reading({ estimate: nullable('number'), ci: fixedInterval, zero_count_guard: { type: 'boolean' } }, 'p_v / p_c − 1.'),
    bayes: reading(
      {
        p_beats_control: probability,
        expected_loss: { type: 'number', minimum: 0 },
        expected_loss_control: { type: 'number', minimum: 0 },
        prior: { const: 'Beta(1,1)' },
        draws: { type: 'integer', minimum: 1 },
        seed: { type: 'integer' },
      },
      'Beta(1,1) posteriors, seeded Monte Carlo (an adaptive campaign: per epoch, the prior shared among the epochs by weight).',
    ),
    power: reading(
      {
        users: count,
        power: probability,
        detectable_effect: nullable('number', { description: 'Absolute uplift found with `power`; null when none is.' }),
        remaining: {
          description: 'With the document’s `min_effect`: users and days still needed to find it; null without.',
          oneOf: [
            { type: 'null' },
            closedObject(
              ['min_effect', 'users_needed', 'users_assigned', 'users_remaining', 'users_per_day', 'days_so_far', 'days_remaining', 'variance_factor'],
              {
                min_effect: { type: 'number' },
                users_needed: count,
                users_assigned: count,
                users_remaining: count,
                users_per_day: { type: 'number', minimum: 0 },
                days_so_far: count,
                days_remaining: nullable('integer', { minimum: 0, description: 'Null with no pace yet.' }),
                variance_factor: {
                  type: 'number',
                  description:
                    'CUPED’s measured 1 − variance reduction when it helps, else 1; for an adaptive campaign, times the design effect of the epoch weighting.',
                },
              },
            ),
          ],
        },
      },
      'The smallest uplift the users so far find.',
    ),
    value: {
      description: 'Null without a goal `value`, or with fewer than two matured users in a group.',
      oneOf: [
        { type: 'null' },
        reading(
          {
            property: { type: 'string' },
            cap: { type: 'number', description: 'Each user’s value is capped here: the 99th percentile of the users’ values above 0, pooled.' },
            capped_users: count,
            control_mean: { type: 'number' },
            variant_mean: { type: 'number' },
            difference: closedObject(['estimate', 'ci', 'se', 'df', 'p_value'], {
              estimate: { type: 'number' },
              ci: interval,
              se: { type: 'number', minimum: 0 },
              df: { type: 'number', minimum: 0, description: 'Welch–Satterthwaite.' },
              p_value: nullable('number'),
            }),
            relative: {
              description: 'm_v / m_c − 1 with the delta method; null when control’s mean is 0.',
              oneOf: [
                { type: 'null' },
                closedObject(['estimate', 'ci', 'se'], { estimate: { type: 'number' }, ci: fixedInterval, se: { type: 'number', minimum: 0 } }),
              ],
            },
          },
          'Mean capped value per user, variant minus control, with Welch’s interval.',
        ),
      ],
    },
    cuped: {
      description: 'Null without a goal.',
      oneOf: [
        { type: 'null' },
        reading(
          {
            theta: { type: 'number' },
            estimate: { type: 'number' },
            ci: fixedInterval,
            se: { type: 'number', minimum: 0 },
            raw: closedObject(['estimate', 'se'], { estimate: { type: 'number' }, se: { type: 'number', minimum: 0 } }),
            variance_reduction: { type: 'number' },
            pre_period_days: { type: 'integer', minimum: 1 },
          },
          'The difference adjusted for each user’s goal count before the campaign (CUPED).',
        ),
      ],
    },
  },
  'Every reading of the variant against control (docs/campaigns.md#report); for an adaptive campaign each is epoch-weighted (docs/campaigns.md#adaptive-allocation).',
);

export const campaignSchemas: Record<string, object> = {
  CampaignDocument: {
    type: 'object',
    description:
      'A campaign document (docs/campaigns.md): `{"name", "trigger", "action", "variants"?, "holdout"?, "caps"?, "quiet_hours"?, "send_at_local"?, "goal"?, "start_at"?, "end_at"?, "rate_per_second"?, "sample_size"?, "min_effect"?}`.',
  },
  Campaign: closedObject(['id', 'name', 'version', 'state', 'document', 'action_ids', 'created_at', 'updated_at'], {
    id: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    state: { enum: [...CAMPAIGN_STATES] },
    document: ref('CampaignDocument'),
    action_ids: {
      type: 'array',
      minItems: 1,
      items: { type: 'integer', minimum: 1 },
      description: 'The `action_id` of each variant, in document order (one when the document has no variants).',
    },
    created_at: time,
    updated_at: time,
  }),
  CampaignSettings: closedObject(['max_per_user_per_day'], {
    max_per_user_per_day: nullable('integer', {
      minimum: 1,
      maximum: 1000,
      description: 'Campaign actions per user per day across the app; null: no app-wide cap.',
    }),
  }),
  CampaignPreview: {
    oneOf: [
      closedObject(['user_id', 'variant', 'outcome', 'action'], {
        user_id: { type: 'string' },
        variant: { type: 'integer', minimum: 1, description: 'The variant, 1 … N in document order.' },
        outcome: { const: 'requested' },
        action: previewAction,
      }),
      closedObject(['user_id', 'variant', 'outcome', 'reason'], {
        user_id: { type: 'string' },
        variant: { type: 'integer', minimum: 0, description: '0 for control.' },
        outcome: { enum: ['control', 'skipped'] },
        reason: {
          type: 'string',
          description: '`control`, `template_variable_missing: <variable>`, `template_error: <message>` or `invalid_action: <path> <message>`.',
        },
      }),
    ],
  },
  CampaignReport: closedObject(
    ['campaign_id', 'as_of', 'goal', 'confidence', 'srm', 'correction', 'guardrails', 'allocation', 'control', 'variants'],
    {
      campaign_id: { type: 'string' },
      as_of: { ...time, description: 'The report’s instant: goal events after it are not counted.' },
      goal: { type: ['object', 'null'], description: 'The document’s goal (an event condition with `within`); null without one.' },
      confidence: { type: 'number', description: 'The confidence level of `uplift`’s intervals (0.95).' },
      srm: { description: 'Null with fewer than two groups or no users.', oneOf: [{ type: 'null' }, srmReading] },
      correction: reading({ method: { const: 'holm' }, family: count }, 'How the readings of several variants are corrected.'),
      guardrails: reading(
        {
          alpha: probability,
          reference: { const: 'other variants' },
          variants: {
            type: 'array',
            items: closedObject(['variant', 'block', 'discard'], { variant: { type: 'integer', minimum: 1 }, block: guardrail, discard: guardrail }),
          },
          warnings: { type: 'array', items: { type: 'string' }, description: 'One sentence per breach.' },
        },
        'Block and discard rates per variant, tested one-sided for harm against the other variants pooled; not corrected for several variants.',
      ),
      allocation: {
        description:
          'Null for a campaign with fixed weights; for an adaptive one, its weights over time and the estimate its uplift and readings are read with.',
        oneOf: [
          { type: 'null' },
          closedObject(['estimate', 'epochs'], {
            estimate: { const: 'epoch_weighted' },
            epochs: {
              type: 'array',
              description: 'The split history, oldest first.',
              items: closedObject(['from', 'holdout', 'weights', 'adaptive'], {
                from: { ...time, description: 'When the epoch began.' },
                holdout: probability,
                weights: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'The variants’ weights in this epoch, in document order.' },
                adaptive: { type: 'boolean', description: 'True when the worker moved the weights; false for the document’s own split.' },
              }),
            },
          }),
        ],
      },
      control: closedObject(GROUP_FIELDS, groupProperties, 'The holdout group: assigned, sent nothing.'),
      variants: {
        type: 'array',
        description: 'Variants 1 … N in document order.',
        items: closedObject([...GROUP_FIELDS, 'variant', 'action_id', 'uplift', 'readings', 'epoch_weighted'], {
          ...groupProperties,
          variant: { type: 'integer', minimum: 1 },
          action_id: { type: 'integer', minimum: 1, description: 'The variant’s actions’ `action_id` (in nudge_response refs).' },
          uplift: {
            description:
              'Against control; null without a goal or when either group has no audience. For an adaptive campaign the epoch-weighted uplift over matured users (as `epoch_weighted`), null when no epoch has matured users in both groups.',
            oneOf: [
              { type: 'null' },
              closedObject(['absolute', 'relative', 'z', 'p_value', 'significant'], {
                absolute: closedObject(['estimate', 'ci'], { estimate: { type: 'number' }, ci: interval }, 'p_v − p_c'),
                relative: {
                  description: 'p_v / p_c − 1; null when p_c = 0.',
                  oneOf: [{ type: 'null' }, closedObject(['estimate', 'ci'], { estimate: { type: 'number' }, ci: interval })],
                },
                z: nullable('number'),
                p_value: nullable('number', { description: 'Two-sided.' }),
                significant: { type: 'boolean', description: 'The interval of the absolute uplift excludes 0.' },
              }),
            ],
          },
          readings: {
            description: 'Null without a goal, or when control or the variant has no matured user (an adaptive campaign: in no common epoch).',
            oneOf: [{ type: 'null' }, variantReadings],
          },
          epoch_weighted: {
            description:
              'An adaptive campaign’s uplift over matured users, Σₑ (Nₑ/N)·Δₑ over its epochs (the headline `uplift` is the same estimate); null for a fixed campaign or without a goal.',
            oneOf: [
              { type: 'null' },
              closedObject(['method', 'estimate', 'ci', 'epochs'], {
                method: { const: 'epoch_weighted' },
                estimate: nullable('number', { description: 'Null when no epoch has users in both control and the variant.' }),
                ci: { ...interval, description: 'At the report’s confidence; null with the estimate.' },
                epochs: { ...count, description: 'Epochs with users in both groups (the others are left out, their weight given to these).' },
              }),
            ],
          },
        }),
      },
    },
    'Per variant and for control (docs/campaigns.md#report).',
  ),
};
