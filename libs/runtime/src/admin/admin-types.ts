/** What the admin acts on besides whole executions: the two kinds of leased work. */
export type WorkKind = 'command' | 'frame';
export const WORK_KINDS: readonly WorkKind[] = ['command', 'frame'];

import type { StuckReason } from '@noetl/storage';

export { STUCK_REASONS, type StuckReason } from '@noetl/storage';

export interface StuckWork {
  kind: WorkKind;
  id: string;
  execution_id: string;
  /** The step of the command, or of the frame's stage. */
  step: string;
  status: string;
  /** A command's attempt number; a frame's claims so far. */
  attempt: number;
  /** A frame's is its stage's `frame_policy.max_attempts`. */
  max_attempts: number;
  worker_id: string | null;
  lease_until: string | null;
  reason: StuckReason;
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
