/** What the admin acts on besides whole executions: the two kinds of leased work. */
export type WorkKind = 'command' | 'frame';
export const WORK_KINDS: readonly WorkKind[] = ['command', 'frame'];

import type { StuckRow } from '@noetl/storage';

export { STUCK_REASONS, type StuckReason } from '@noetl/storage';

/** Open work that looks stuck, as the admin API lists it (`StuckRow` with its kind, and the lease end as ISO text). */
export interface StuckWork extends Omit<StuckRow, 'lease_until'> {
  kind: WorkKind;
  lease_until: string | null;
}

export interface StuckQuery {
  /** Only commands or only frames; both by default. */
  kind?: WorkKind;
  /** At most this many (default 100, at most 1000), oldest first. */
  limit?: number;
}

export interface StuckList {
  stuck: StuckWork[];
}

/** Who acts and why; every admin action is recorded as one `admin.action` event with these. */
export interface AdminRequest {
  /** Default `admin`. */
  actor?: string;
  reason?: string;
}

/** Failing work or an execution needs a reason: it becomes the error message. */
export interface AdminReasonedRequest extends AdminRequest {
  reason: string;
}

export const AdminActions = {
  reclaim: 'reclaim',
  fail: 'fail',
  finalize: 'finalize',
  cancel: 'cancel',
  purge: 'purge',
} as const;
export type AdminActionName = (typeof AdminActions)[keyof typeof AdminActions];

export const ADMIN_TARGET_TYPES = ['execution', 'command', 'frame'] as const;
export type AdminTargetType = (typeof ADMIN_TARGET_TYPES)[number];

/** What an admin action recorded. */
export interface AdminActionResult {
  action: AdminActionName;
  target_type: AdminTargetType;
  target_id: string;
  execution_id: string;
  /** The `admin.action` event. */
  event_id: string;
  /** The target's status after the action (for an execution: the status its terminal event gives it). */
  status: string;
}
