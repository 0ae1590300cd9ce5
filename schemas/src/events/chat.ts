import { is, onNested, oneOf, requiredWhen, ruleWhen } from '../dsl/rules';
import type { ObjectRule } from '../dsl/types';
import { opt, req, t, type EventDef } from '../dsl/types';
import { messageBody } from './objects';

/** Chat block events (spec 6, Chat). */
const MESSAGE_TYPES = ['text', 'audio', 'document', 'image', 'video', 'sticker', 'contact', 'poll', 'reaction'] as const;
const GROUP_TYPES = ['join', 'leave', 'remove', 'create', 'update', 'delete'] as const;
export const RECEIPT_TYPES = ['sent', 'failed', 'deleted', 'delivered', 'read'] as const;

const always = () => true;
const imageNeedsSource = oneOf(['url', 'base64'], 'image_url_or_base64', 'an image body needs url or base64');
const bodyNeeds = (field: string, type: string): ObjectRule => requiredWhen(field, always, 'message_body_shape', `a ${type} message body needs ${field}`);

/**
 * The body's shape depends on the message `type` (2.6), so the per-type requirements live on the
 * event, where both are visible. Video, sticker, contact and poll bodies are not shown in the spec:
 * any object is accepted for them.
 */
const bodyRules: ObjectRule[] = [
  ruleWhen(is('type', 'text'), [onNested('body', [bodyNeeds('text', 'text')])]),
  ruleWhen(is('type', 'audio', 'document'), [onNested('body', [bodyNeeds('mime_type', 'audio or document'), bodyNeeds('base64', 'audio or document')])]),
  ruleWhen(is('type', 'image'), [onNested('body', [imageNeedsSource])]),
  ruleWhen(is('type', 'reaction'), [onNested('body', [bodyNeeds('emoji', 'reaction')])]),
];

const messageEvent: EventDef = {
  event: 'message',
  block: 'chat',
  name: 'MessageProps',
  fields: {
    // The spec names two chat applications without spelling them: the value list is not known, so
    // this is a plain string (documented in docs/data-contract.md).
    platform: req(t.string, { doc: 'two chat applications (lowercase) or other' }),
    msg_id: req(t.string, { doc: 'globally unique' }),
    sender_type: req(t.enum('sender_type', ['user', 'bot'])),
    sender_id: req(t.string),
    recipient_type: req(t.enum('recipient_type', ['user', 'group'])),
    recipient_id: opt(t.string),
    parent_msg_id: opt(t.string, { doc: 'previous message in the reply chain' }),
    type: req(t.enum('message_type', MESSAGE_TYPES)),
    body: req(t.object(messageBody), { doc: 'shape depends on type' }),
  },
  rules: bodyRules,
};

const groupEvent: EventDef = {
  event: 'group',
  block: 'chat',
  name: 'GroupProps',
  fields: {
    group_id: req(t.string),
    type: req(t.enum('group_type', GROUP_TYPES)),
    member_type: opt(t.enum('member_type', ['user', 'bot'])),
    member_id: opt(t.string),
    group_name: opt(t.string),
    description: opt(t.string),
  },
};

/** Receipts are also sent with the outer type `group`; see `resolveEventName` in event-defs.ts. */
const receiptEvent: EventDef = {
  event: 'receipt',
  block: 'chat',
  name: 'ReceiptProps',
  fields: {
    msg_id: req(t.string),
    type: req(t.enum('receipt_type', RECEIPT_TYPES)),
    member_id: opt(t.string),
  },
};

export const chatEvents: EventDef[] = [messageEvent, groupEvent, receiptEvent];
