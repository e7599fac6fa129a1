import { DEFAULT_FRAME_POLICY, type FramePolicy } from '../model';
import { FRAME_KEYS } from './allowed-keys';
import { checkKeys, type ParseContext } from './parse-context';
import { isPositiveInt, isRawMap, keyPath } from './raw-shape';

type NumericField = Exclude<keyof FramePolicy, 'process'>;

/** `loop.spec.frame` snake_case keys -> FramePolicy fields (DSL.md s4.1). */
const NUMERIC_FIELDS: ReadonlyArray<[string, NumericField]> = [
  ['max_rows', 'maxRows'],
  ['max_seconds', 'maxSeconds'],
  ['max_bytes', 'maxBytes'],
  ['lease_seconds', 'leaseSeconds'],
  ['heartbeat_seconds', 'heartbeatSeconds'],
  ['max_attempts', 'maxAttempts'],
  ['row_concurrency', 'rowConcurrency'],
];

/** The frame policy, defaults from DEFAULT_FRAME_POLICY; every number a positive integer. */
export function normaliseFrame(raw: unknown, path: string, ctx: ParseContext): FramePolicy {
  const frame: FramePolicy = { ...DEFAULT_FRAME_POLICY };
  if (raw === undefined || raw === null) return frame;
  if (!isRawMap(raw)) {
    ctx.problems.add(path, '"frame" must be a mapping');
    return frame;
  }
  checkKeys(raw, FRAME_KEYS, path, ctx);
  for (const [key, field] of NUMERIC_FIELDS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    if (isPositiveInt(value)) frame[field] = value;
    else ctx.problems.add(keyPath(path, key), `frame "${key}" must be a positive integer, not ${JSON.stringify(value)}`);
  }
  const process = raw.process;
  if (process === 'row' || process === 'frame') frame.process = process;
  else if (process !== undefined && process !== null) {
    ctx.problems.add(keyPath(path, 'process'), `frame "process" must be "row" or "frame", not ${JSON.stringify(process)}`);
  }
  if (frame.heartbeatSeconds >= frame.leaseSeconds) {
    const at = raw.heartbeat_seconds !== undefined ? 'heartbeat_seconds' : 'lease_seconds';
    ctx.problems.add(
      keyPath(path, at),
      `frame "heartbeat_seconds" (${frame.heartbeatSeconds}) must be less than "lease_seconds" (${frame.leaseSeconds})`,
    );
  }
  return frame;
}
