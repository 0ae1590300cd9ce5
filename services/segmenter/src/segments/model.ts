import type { Condition } from '@evp/segment-language';

/** A saved segment of one app. `version` starts at 1 and each update bumps it (and recomputes). */
export interface Segment {
  app_id: string;
  id: string;
  name: string;
  version: number;
  definition: Condition;
  /** Epoch ms, as every versioned item keeps it (@evp/clickhouse, Versioned); the API shows RFC 3339. */
  created_at: number;
  updated_at: number;
}

/** Where segment definitions are kept (ClickHouse table `segment_definitions`); every call is scoped to one app. */
export interface SegmentDefinitions {
  create(appId: string, input: { name: string; definition: Condition }): Promise<Segment>;
  get(appId: string, id: string): Promise<Segment | undefined>;
  list(appId: string): Promise<Segment[]>;
  /** Bumps the version; undefined when the segment does not exist (or was deleted). */
  update(appId: string, id: string, input: { name: string; definition: Condition }): Promise<Segment | undefined>;
  /** False when it did not exist. */
  delete(appId: string, id: string): Promise<boolean>;
  /** Every live segment of every app (the scheduler's list). */
  listAll(): Promise<Segment[]>;
}

export interface MemberPage {
  data: { user_id: string; entered_at: string }[];
  /** Opaque; absent on the last page. */
  cursor?: string;
}

/** Membership as kept in ClickHouse (table `segment_members`): current members one query away. */
export interface MembershipReader {
  members(appId: string, segmentId: string, opts: { cursor?: string; limit: number }): Promise<MemberPage>;
  /** The segments the user is currently a member of, with when they entered. */
  segmentsOf(appId: string, userId: string): Promise<{ segment_id: string; entered_at: string }[]>;
}

/** One change of membership, as published on `segments.membership`: one definition, MEMBERSHIP_FIELDS (schemas/src/membership.ts). */
export type { MembershipChange } from '@evp/schemas';

/** Asks for evaluations; the work is done by whichever replica owns the segment. */
export interface SegmentScheduler {
  /** A full recompute soon (after create/update, or when a referenced segment changed). */
  requestRecompute(appId: string, segmentId: string): Promise<void>;
}
