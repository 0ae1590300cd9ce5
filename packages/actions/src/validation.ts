import { z } from 'zod';
import { checked, refused, type Checked, type RejectionReason } from '@evp/core';
import {
  ACTION_LIMITS,
  ACTION_REQUEST_FIELDS,
  NEW_ACTION_FIELDS,
  REQUESTED_ACTION_FIELDS,
  type ActionRequestMessage,
  type NewActionFields,
  type RequestedAction,
} from '@evp/schemas';
import { fieldsSchema } from './fields-schema';
import {
  ACTION_RESPONSES,
  ACTION_TYPES,
  DELIVERY_MODES,
  MAX_ACTIONS_PER_CREATE,
  RENDER_METHODS,
  RENDER_METHODS_BY_TYPE,
  isRenderMethodAllowed,
  type ActionType,
  type NewAction,
  type PullQuery,
  type RenderMethod,
} from './model';

// Request validation gives a Checked (@evp/core): every reason with the JSON path of the offending
// value (`$.actions[3].render_method`), a stable rule name and a message, so HTTP can answer
// 400 invalid_request with `path` and the consumer can log why a message was dropped.

/** The action's own limits live with its fields (ACTION_LIMITS, schemas/src/action-request.ts); the pull's here. */
export const LIMITS = { ...ACTION_LIMITS, cursorLength: 20 } as const;

const userId = z.string().min(1, 'must not be empty').max(LIMITS.userIdLength);

const attrMap = z
  .record(z.string().min(1, 'attribute names must not be empty').max(LIMITS.attrKeyLength), z.string().max(LIMITS.attrValueLength))
  .refine((m) => Object.keys(m).length <= LIMITS.attrPairs, `at most ${LIMITS.attrPairs} attributes`);

/** type↔render_method rule (see RENDER_METHODS_BY_TYPE), reported on render_method. */
function checkRenderMethod(v: { type: ActionType; render_method: RenderMethod }, ctx: z.RefinementCtx) {
  if (!isRenderMethodAllowed(v.type, v.render_method)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['render_method'],
      message: `type '${v.type}' allows render_method ${RENDER_METHODS_BY_TYPE[v.type].join(', ')}`,
      params: { rule: 'type_render_method' },
    });
  }
}

/** An action is for one user: `*` selects users when pulling. */
const oneUser = { user_id: (s: z.ZodTypeAny) => s.refine((v) => v !== '*', "'*' selects users when pulling; an action is for one user") };

/** An action as POST /v1/actions takes it, from its field table. */
export const newActionSchema: z.ZodType<NewAction, z.ZodTypeDef, unknown> = fieldsSchema<NewActionFields>(NEW_ACTION_FIELDS, { refine: oneUser }).superRefine(
  checkRenderMethod,
);

/**
 * An `actions.requested` message, from its field table: every action carries both ids (redelivery
 * then cannot duplicate them), and only they may carry `caps` (a cap counts a campaign's actions,
 * which come this way).
 */
const actionRequestMessageSchema = fieldsSchema<ActionRequestMessage>(ACTION_REQUEST_FIELDS, {
  items: { actions: fieldsSchema<RequestedAction>(REQUESTED_ACTION_FIELDS, { refine: oneUser }).superRefine(checkRenderMethod) },
});

const actionList = z.array(newActionSchema).min(1, 'give at least one action').max(MAX_ACTIONS_PER_CREATE);
const createEnvelope = z.object({ actions: actionList }).strict();

const pullCursor = z
  .string()
  .regex(/^[0-9]+$/, 'must be a cursor returned by an earlier pull')
  .max(LIMITS.cursorLength);

export const pullRequestSchema = z
  .object({
    user_id: userId,
    type: z.enum(ACTION_TYPES),
    render_method: z.enum(RENDER_METHODS),
    delivery_mode: z.enum(DELIVERY_MODES),
    attr: attrMap.optional(),
    cursor: pullCursor.optional(),
  })
  .strict()
  .superRefine(checkRenderMethod);

/**
 * Spellings the client libraries use (spec 4.3: Custom/UIComponent, InAppComponent/InAppMessage,
 * OneOff/Cached), accepted by the SDK pull only. A UI component is content the app renders itself,
 * hence `custom` + `generic_message`.
 */
export const SDK_ALIASES = {
  type: { Custom: 'custom', Message: 'message', UIComponent: 'custom', 'ui-component': 'custom', ui_component: 'custom' },
  render_method: {
    InAppComponent: 'generic_message',
    in_app_component: 'generic_message',
    'in-app-component': 'generic_message',
    InAppMessage: 'in_app_message',
    'in-app-message': 'in_app_message',
    PushNotification: 'push_notification',
    GenericMessage: 'generic_message',
  },
  delivery_mode: { OneOff: 'one-off', one_off: 'one-off', Cached: 'cached' },
} as const satisfies Record<'type' | 'render_method' | 'delivery_mode', Record<string, string>>;

function alias(table: Record<string, string>) {
  return (v: unknown) => (typeof v === 'string' && Object.hasOwn(table, v) ? table[v] : v);
}

export const sdkPullRequestSchema = z
  .object({
    user_id: userId.refine((s) => s !== '*', "the SDK pull serves one user; '*' needs the bulk pull with an API key"),
    type: z.preprocess(alias(SDK_ALIASES.type), z.enum(ACTION_TYPES)),
    render_method: z.preprocess(alias(SDK_ALIASES.render_method), z.enum(RENDER_METHODS)),
    delivery_mode: z.preprocess(alias(SDK_ALIASES.delivery_mode), z.enum(DELIVERY_MODES)),
    attr: attrMap.optional(),
    // A cached SDK pull can exceed the pull max like a bulk one; without the cursor the client
    // could never reach the entries after the first page.
    cursor: pullCursor.optional(),
  })
  .strict()
  .superRefine(checkRenderMethod);

export const feedbackResponseSchema = z.enum(ACTION_RESPONSES);

// ---------------------------------------------------------------------------------------------

/** `$`, `$.a[3].b`, `$.attr["a b"]`: the JSON path notation used in every rejection. */
export function jsonPath(segments: readonly (string | number)[], root = '$'): string {
  let out = root;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function ruleOf(issue: z.ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.received === 'undefined' ? 'required' : 'type';
    case 'invalid_enum_value':
    case 'invalid_literal':
      return 'enum';
    case 'too_small':
      return 'min';
    case 'too_big':
      return 'max';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'invalid_string':
      return 'format';
    case 'custom':
      return (issue.params?.rule as string | undefined) ?? 'invalid';
    default:
      return issue.code;
  }
}

function toReasons(error: z.ZodError, prefix: readonly (string | number)[]): RejectionReason[] {
  const reasons: RejectionReason[] = [];
  for (const issue of error.issues) {
    const rule = ruleOf(issue);
    if (issue.code === 'unrecognized_keys') {
      // One reason per unknown field, each pointing at the field itself.
      for (const key of issue.keys) {
        reasons.push({ path: jsonPath([...prefix, ...issue.path, key]), rule, message: 'unknown field' });
      }
      continue;
    }
    reasons.push({ path: jsonPath([...prefix, ...issue.path]), rule, message: issue.message });
  }
  return reasons;
}

function run<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, input: unknown, prefix: readonly (string | number)[] = []): Checked<T> {
  const r = schema.safeParse(input);
  return r.success ? checked(r.data) : refused(toReasons(r.error, prefix));
}

const notAnObject = (path: string, message: string): Checked<never> => refused([{ path, rule: 'type', message }]);

/**
 * An action list longer than the limit, refused before any item is validated: zod checks every item
 * even when the length already fails, which made 100,000 `{}` cost seconds and a 41 MB answer.
 */
function tooManyActions(list: unknown, path: string): Checked<never> | undefined {
  if (!Array.isArray(list) || list.length <= MAX_ACTIONS_PER_CREATE) return undefined;
  return refused([{ path, rule: 'max', message: `at most ${MAX_ACTIONS_PER_CREATE} actions per request; got ${list.length}` }]);
}

/**
 * Body of `POST /v1/actions`: either a JSON array of actions or `{ "actions": [...] }`. Paths follow
 * the form sent (`$[2].type` or `$.actions[2].type`).
 */
export function parseCreateRequest(body: unknown): Checked<NewAction[]> {
  if (Array.isArray(body)) return tooManyActions(body, '$') ?? run(actionList, body);
  if (body === null || typeof body !== 'object') {
    return notAnObject('$', 'the body must be an array of actions or an object {"actions": [...]}');
  }
  const tooMany = tooManyActions((body as { actions?: unknown }).actions, '$.actions');
  if (tooMany) return tooMany;
  const r = run(createEnvelope, body);
  return r.ok ? checked(r.value.actions) : r;
}

/**
 * One action as a create request holds it, its reasons' paths under `prefix` (`['action']` →
 * `$.action.render_method`). Campaigns check an action template with it and the actions they render
 * (services/segmenter/src/campaigns/action-template.ts), so both follow the store's rules exactly.
 */
export function parseNewAction(value: unknown, prefix: readonly (string | number)[] = []): Checked<NewAction> {
  return run(newActionSchema, value, prefix);
}

export function parsePullRequest(body: unknown): Checked<PullQuery> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return notAnObject('$', 'the body must be a JSON object');
  return run(pullRequestSchema, body);
}

/** Path parameter `user_id` (the unblock route): a concrete user, as in an action; paths read `params.user_id`. */
export function parseUserIdParam(value: unknown): Checked<string> {
  const r = run(oneUser.user_id(userId) as z.ZodType<string, z.ZodTypeDef, unknown>, value);
  return r.ok ? r : refused(r.reasons.map((i) => ({ ...i, path: 'params.user_id' })));
}

export function parseSdkPullRequest(body: unknown): Checked<PullQuery> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return notAnObject('$', 'the body must be a JSON object');
  return run(sdkPullRequestSchema, body);
}

export type { ActionRequestMessage };

/** An `actions.requested` message's value (ACTION_REQUEST_FIELDS): every problem with its path. */
export function parseActionRequestMessage(value: unknown): Checked<ActionRequestMessage> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return notAnObject('$', 'the message must be a JSON object');
  return tooManyActions((value as { actions?: unknown }).actions, '$.actions') ?? run(actionRequestMessageSchema, value);
}
