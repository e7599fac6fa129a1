import { createHash } from 'node:crypto';

/**
 * The delay, in [0, jitterSeconds) s, of one fire time of one schedule: drawn
 * from a hash of both, so every scheduler and every restart agrees on it and
 * a fire time is due at one instant.
 */
export function jitterMs(scheduleId: string, fireTime: Date, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return 0;
  const digest = createHash('sha256').update(`${scheduleId}:${fireTime.toISOString()}`).digest();
  const unit = digest.readUIntBE(0, 6) / 2 ** 48;
  return Math.floor(unit * jitterSeconds * 1000);
}
