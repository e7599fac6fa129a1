import pino from 'pino';
import { RuntimeError } from '../runtime-error';
import { keepLease } from './keep-lease';

const log = pino({ level: 'silent' });
const LEASE_MS = 3_000;

describe('keepLease', () => {
  let clock = 0;
  const now = () => clock;
  /** Runs the next beat (a third of the lease later) and lets its answer settle. */
  const nextBeat = async () => {
    clock += LEASE_MS / 3;
    jest.advanceTimersByTime(LEASE_MS / 3);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  beforeEach(() => {
    clock = 0;
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  it('gives up the run when no heartbeat is answered for a whole lease (a partitioned or stopped worker)', async () => {
    const controller = new AbortController();
    const timer = keepLease(() => Promise.reject(new Error('connect ECONNREFUSED')), LEASE_MS, controller, log, now);
    await nextBeat();
    await nextBeat();
    expect(controller.signal.aborted).toBe(false);
    await nextBeat();
    expect(controller.signal.aborted).toBe(true);
    clearInterval(timer);
  });

  it('keeps the run through failed heartbeats as long as one was answered within the lease', async () => {
    const controller = new AbortController();
    let beats = 0;
    const timer = keepLease(
      () => (++beats % 2 === 0 ? Promise.resolve({ lease_until: '', cancelled: false }) : Promise.reject(new Error('socket hang up'))),
      LEASE_MS,
      controller,
      log,
      now,
    );
    for (let i = 0; i < 12; i++) await nextBeat();
    expect(controller.signal.aborted).toBe(false);
    clearInterval(timer);
  });

  it('gives up at once when the lease is refused or the execution cancelled', async () => {
    const refused = new AbortController();
    const cancelled = new AbortController();
    const timers = [
      keepLease(() => Promise.reject(new RuntimeError('lease_lost', 'lease lost')), LEASE_MS, refused, log, now),
      keepLease(() => Promise.resolve({ lease_until: '', cancelled: true }), LEASE_MS, cancelled, log, now),
    ];
    await nextBeat();
    expect([refused.signal.aborted, cancelled.signal.aborted]).toEqual([true, true]);
    timers.forEach(clearInterval);
  });
});
