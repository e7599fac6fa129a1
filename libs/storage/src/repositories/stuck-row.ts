/**
 * Why a piece of work is listed as stuck (DESIGN.md s4 "Reaper and timers"):
 * - `lease_expired`: claimed or running, and its lease ran out (the reaper abandons it at its next sweep);
 * - `silent_heartbeat`: running, its lease still valid, but two heartbeat periods (a third of the
 *   lease each, as the worker beats) passed with no heartbeat: the holder is likely gone;
 * - `unclaimed`: waiting for a worker for longer than the caller's bound;
 * - `attempts_exhausted` (frames): pending again with every attempt of its frame policy spent.
 */
export const STUCK_REASONS = ['lease_expired', 'silent_heartbeat', 'unclaimed', 'attempts_exhausted'] as const;
export type StuckReason = (typeof STUCK_REASONS)[number];

/** Open work that looks stuck, as the admin API lists it. */
export interface StuckRow {
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
  lease_until: Date | null;
  reason: StuckReason;
}

/*
 * The stuck queries share these rules. `last_signal` is the holder's latest
 * sign of life (its claim, start or heartbeat); `lease_until - last_signal` is
 * then the lease it asked for, and a worker beats every third of it. Work of
 * an execution that is no longer RUNNING is left out: nothing may act on it
 * any more.
 */

export function normaliseStuck(row: StuckRow): StuckRow {
  return { ...row, id: String(row.id), execution_id: String(row.execution_id) };
}
