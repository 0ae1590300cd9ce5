import { z } from 'zod';
import type { RejectionReason } from '@evp/core';
import {
  ACTION_RESPONSES,
  ACTION_TYPES,
  DELIVERY_MODES,
  MAX_ACTIONS_PER_CREATE,
  MAX_GIVEN_ID,
  RENDER_METHODS,
  RENDER_METHODS_BY_TYPE,
  isRenderMethodAllowed,
  type ActionType,
  type NewAction,
  type PullQuery,
  type RenderMethod,
} from './model';
import { parseIsoWithOffset } from './time';

/**
 * Request validation. Every problem is reported with the JSON path of the offending value
 * (`$.actions[3].render_method`), a stable rule name and a message, so HTTP can answer
 * 400 invalid_request with `path` and the consumer can log why a message was dropped.
 */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; issues: RejectionReason[] };

export const LIMITS = {
  userIdLength: 256,
  titleLength: 1_000,
  bodyLength: 10_000,
  attrPairs: 50,
  attrKeyLength: 128,
  attrValueLength: 1_024,
  tags: 50,
  tagLength: 128,
  cursorLength: 20,
  capKeyLength: 128,
  /** A campaign cap's window: at most a year. */
  capWindowMs: 366 * 24 * 60 * 60 * 1000,
  capMax: 1_000_000,
} as const;

const userId = z.string().min(1, 'must not be empty').max(LIMITS.userIdLength);

const attrMap = z
  .record(z.string().min(1, 'attribute names must not be empty').max(LIMITS.attrKeyLength), z.string().max(LIMITS.attrValueLength))
  .refine((m) => Object.keys(m).length <= LIMITS.attrPairs, `at most ${LIMITS.attrPairs} attributes`);

const givenId = z.number().int().min(0).max(MAX_GIVEN_ID);

const expiredAt = z
  .string()
  .refine((s) => parseIsoWithOffset(s) !== undefined, 'must be an ISO 8601 timestamp with offset, e.g. 2025-01-31T12:00:00Z (0001-01-01T00:00:00Z = never)');

const availableAt = z.string().refine((s) => parseIsoWithOffset(s) !== undefined, 'must be an RFC 3339 timestamp with offset, e.g. 2025-01-31T09:00:00+05:45');

const capMax = z.number().int().min(1).max(LIMITS.capMax);

/** Frequency caps: `actions.requested` only (campaigns); docs/actions.md "Frequency caps". */
const capsSchema = z
  .object({
    campaign: z
      .object({
        key: z.string().min(1, 'must not be empty').max(LIMITS.capKeyLength),
        max: capMax,
        within_ms: z.number().int().min(1).max(LIMITS.capWindowMs),
      })
      .strict()
      .optional(),
    app: z.object({ max: capMax }).strict().optional(),
  })
  .strict();

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

const newActionShape = {
  user_id: userId.refine((s) => s !== '*', "'*' selects users when pulling; an action is for one user"),
  type: z.enum(ACTION_TYPES),
  render_method: z.enum(RENDER_METHODS),
  delivery_mode: z.enum(DELIVERY_MODES),
  content: z.object({ title: z.string().max(LIMITS.titleLength), body: z.string().max(LIMITS.bodyLength) }).strict(),
  attr: attrMap.default({}),
  tags: z.array(z.string().min(1).max(LIMITS.tagLength)).max(LIMITS.tags).default([]),
  expired_at: expiredAt,
  available_at: availableAt.optional(),
};

export const newActionSchema = z
  .object({ ...newActionShape, inv_id: givenId.optional(), action_id: givenId.optional() })
  .strict()
  .superRefine(checkRenderMethod);

/**
 * Actions from `actions.requested` must carry both ids: redelivery then cannot duplicate them. Only
 * they may carry `caps`: a cap counts a campaign's actions, which come this way.
 */
const requestedActionSchema = z
  .object({ ...newActionShape, inv_id: givenId, action_id: givenId, caps: capsSchema.optional() })
  .strict()
  .superRefine(checkRenderMethod);

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

function run<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, input: unknown, prefix: readonly (string | number)[] = []): ParseResult<T> {
  const r = schema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: toReasons(r.error, prefix) };
}

const notAnObject = (path: string, message: string): ParseResult<never> => ({
  ok: false,
  issues: [{ path, rule: 'type', message }],
});

/**
 * An action list longer than the limit, refused before any item is validated: zod checks every item
 * even when the length already fails, which made 100,000 `{}` cost seconds and a 41 MB answer.
 */
function tooManyActions(list: unknown, path: string): ParseResult<never> | undefined {
  if (!Array.isArray(list) || list.length <= MAX_ACTIONS_PER_CREATE) return undefined;
  return { ok: false, issues: [{ path, rule: 'max', message: `at most ${MAX_ACTIONS_PER_CREATE} actions per request; got ${list.length}` }] };
}

/**
 * Body of `POST /v1/actions`: either a JSON array of actions or `{ "actions": [...] }`. Paths follow
 * the form sent (`$[2].type` or `$.actions[2].type`).
 */
export function parseCreateRequest(body: unknown): ParseResult<NewAction[]> {
  if (Array.isArray(body)) return tooManyActions(body, '$') ?? run(actionList, body);
  if (body === null || typeof body !== 'object') {
    return notAnObject('$', 'the body must be an array of actions or an object {"actions": [...]}');
  }
  const tooMany = tooManyActions((body as { actions?: unknown }).actions, '$.actions');
  if (tooMany) return tooMany;
  const r = run(createEnvelope, body);
  return r.ok ? { ok: true, value: r.value.actions } : r;
}

/**
 * One action as a create request holds it, problems' paths under `prefix` (`['action']` →
 * `$.action.render_method`). Campaigns check an action template with it and the actions they render
 * (services/segmenter/src/campaigns/action-template.ts), so both follow the store's rules exactly.
 */
export function parseNewAction(value: unknown, prefix: readonly (string | number)[] = []): ParseResult<NewAction> {
  return run(newActionSchema, value, prefix);
}

export function parsePullRequest(body: unknown): ParseResult<PullQuery> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return notAnObject('$', 'the body must be a JSON object');
  return run(pullRequestSchema, body);
}

/** Path parameter `user_id` (the unblock route): a concrete user, as in an action; paths read `params.user_id`. */
export function parseUserIdParam(value: unknown): ParseResult<string> {
  const r = run(newActionShape.user_id, value);
  return r.ok ? r : { ok: false, issues: r.issues.map((i) => ({ ...i, path: 'params.user_id' })) };
}

export function parseSdkPullRequest(body: unknown): ParseResult<PullQuery> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return notAnObject('$', 'the body must be a JSON object');
  return run(sdkPullRequestSchema, body);
}

/** Value of an `actions.requested` message: `{app_id, source?, actions: [...]}` with both ids on every action. */
export interface ActionRequestMessage {
  app_id: string;
  /** Kept in the action log's created entries (e.g. `campaign:42`); default `actions.requested`. */
  source?: string;
  actions: NewAction[];
}

const actionRequestMessageSchema = z
  .object({
    app_id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._-]+$/),
    source: z.string().min(1).max(128).optional(),
    actions: z.array(requestedActionSchema).min(1).max(MAX_ACTIONS_PER_CREATE),
  })
  .strict();

export function parseActionRequestMessage(value: unknown): ParseResult<ActionRequestMessage> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return notAnObject('$', 'the message must be a JSON object');
  return tooManyActions((value as { actions?: unknown }).actions, '$.actions') ?? run(actionRequestMessageSchema, value);
}
