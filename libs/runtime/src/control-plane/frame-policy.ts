import type { JsonObject } from '@noetl/event-kernel';

/** Lease of a frame from its stage's policy (`lease_seconds`), else the default. */
export function frameLeaseMs(policy: JsonObject, fallbackMs: number): number {
  const seconds = Number(policy['lease_seconds']);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : fallbackMs;
}

/** Max whole-frame attempts from the stage's policy (`max_attempts`, default 3). */
export function frameMaxAttempts(policy: JsonObject): number {
  const attempts = Number(policy['max_attempts']);
  return Number.isInteger(attempts) && attempts > 0 ? attempts : 3;
}
