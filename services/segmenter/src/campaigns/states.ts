import { checked, refused, type Checked } from '@evp/core';

/**
 * A campaign's life: created as a draft; `resume` makes it active; `pause` stops it acting on
 * triggers until `resume`; `end` is final. Repeating a command in the state it leads to changes
 * nothing and is no error (a retried request must not fail), so the API can be called at least once.
 */
export const CAMPAIGN_STATES = ['draft', 'active', 'paused', 'ended'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

export const CAMPAIGN_COMMANDS = ['resume', 'pause', 'end'] as const;
export type CampaignCommand = (typeof CAMPAIGN_COMMANDS)[number];

/** Per state: the state each allowed command leads to. A command missing here is refused in that state. */
const TRANSITIONS: Readonly<Record<CampaignState, Partial<Record<CampaignCommand, CampaignState>>>> = {
  draft: { resume: 'active', end: 'ended' },
  active: { resume: 'active', pause: 'paused', end: 'ended' },
  paused: { resume: 'active', pause: 'paused', end: 'ended' },
  ended: { end: 'ended' },
};

/** A command's result: the state it leads to and whether that is a change, or why the command is refused in this state (rule `transition`). */
export function transition(from: CampaignState, command: CampaignCommand): Checked<{ state: CampaignState; changed: boolean }> {
  const to = TRANSITIONS[from][command];
  if (to === undefined) {
    const why = from === 'ended' ? 'an ended campaign stays ended' : 'a draft has not started: resume it first';
    return refused([{ path: '$', rule: 'transition', message: `cannot ${command} a campaign that is ${from}: ${why}` }]);
  }
  return checked({ state: to, changed: to !== from });
}

/**
 * Whose document may be replaced (`PUT`): a draft, or a paused campaign. An active one is paused
 * first, so no trigger is acted on half under the old document and half under the new; an ended
 * one is a record of what ran.
 */
export const isEditable = (state: CampaignState): boolean => state === 'draft' || state === 'paused';

/**
 * Whether triggers are acted on at `nowMs`: active, and inside [start_at, end_at) when given
 * (epoch ms). After end_at the campaign is over whatever its state says; marking it ended is the
 * caller's.
 */
export function isLive(state: CampaignState, window: { startMs?: number; endMs?: number }, nowMs: number): boolean {
  if (state !== 'active') return false;
  if (window.startMs !== undefined && nowMs < window.startMs) return false;
  return window.endMs === undefined || nowMs < window.endMs;
}
