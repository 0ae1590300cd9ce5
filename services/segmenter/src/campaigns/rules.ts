import { Reasons } from '@evp/segment-language';

/**
 * The rules a campaign document is checked against, by the name every problem carries (stable:
 * clients may branch on them). Inside an event condition (the event trigger, the goal) reasons
 * carry the segment language's rules (docs/segments.md), inside an action the action store's
 * (docs/actions.md). docs/campaigns.md lists these; a test keeps the two in step.
 */
export const CAMPAIGN_RULES = {
  type: 'a value has the wrong JSON type',
  required: 'a required key is missing',
  unknown_key: 'a key the document (or that part of it) does not have',
  one_of: 'keys of which exactly one may be given are given together',
  trigger_kind: 'the trigger is not exactly one of segment_entry, event, schedule, api',
  condition_kind: 'the event trigger or the goal is not an event condition',
  unsupported: 'a part of the segment language a trigger or goal does not use (count; within on a trigger)',
  unknown_segment: 'no segment of this app has this id',
  duration: 'not an ISO 8601 duration the segment language accepts',
  timestamp: 'not an RFC 3339 timestamp the segment language accepts',
  window_order: 'end_at is not after start_at',
  range: 'a number is outside its bounds (holdout, weight, caps, rate, schedule interval)',
  min_items: 'a list is too short',
  max_items: 'a list is too long',
  local_time: 'not a local time HH:MM (00:00–23:59)',
  quiet_hours: 'quiet hours are empty, or send_at_local falls inside them',
  template_syntax: 'a template does not parse as Liquid, or uses an unknown filter',
  template_tag: 'a template uses a tag that reads another template (include, render, layout)',
  unknown_variable: 'a template reads a variable the data contract does not have',
} as const;

export type CampaignRule = keyof typeof CAMPAIGN_RULES;

/** Reasons of one document, each at a JSON path from its root (`$.trigger.event.where[0].op`). */
export type CampaignReasons = Reasons<CampaignRule>;
export const campaignReasons = (): CampaignReasons => new Reasons<CampaignRule>();
