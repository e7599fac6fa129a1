import type { FrameRow, LockedFrame } from '@noetl/storage';
import { RuntimeError, notFound } from '../runtime-error';
import { holdsLease, type Holder } from './lease-token';

/** The frame, unless it is unknown or ended. */
export function unendedFrame(frameId: string, frame: LockedFrame | undefined): LockedFrame {
  if (!frame) throw notFound('frame', frameId);
  if (frame.status === 'COMMITTED' || frame.status === 'FAILED') {
    throw new RuntimeError('already_terminal', `frame ${frameId} is already ${frame.status}`);
  }
  return frame;
}

/** The frame, unless it is unknown, ended, or its execution ended. */
export function liveFrame(frameId: string, row: LockedFrame | undefined): LockedFrame {
  const frame = unendedFrame(frameId, row);
  if (frame.execution_ended) {
    throw new RuntimeError('already_terminal', `execution ${frame.execution_id} of frame ${frameId} already ended`);
  }
  return frame;
}

/**
 * A frame is abandoned whole when its lease runs out, so a worker that no
 * longer holds it has nothing left to report: its attempt is over
 * (`already_terminal`, DESIGN.md s6), whoever holds the frame now.
 */
export function assertFrameHolder(frame: FrameRow, holder: Holder): void {
  if (frame.status === 'PENDING' || !holdsLease({ worker_id: frame.owner_worker, lease_token: frame.lease_token }, holder)) {
    throw new RuntimeError(
      'already_terminal',
      `frame ${frame.frame_id} is not held by worker ${holder.worker_id} with this lease (${frame.status}): its attempt is over`,
    );
  }
}
