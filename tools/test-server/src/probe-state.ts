import { roundTo } from './round-to';

/** Counters and ring buffer of the concurrency probe (TEST_SERVER.md §2). */

export interface ProbeStartEvent {
  phase: 'start';
  request_id: number;
  label: string;
  delay_seconds: number;
  ts: number;
  active: number;
}

export interface ProbeEndEvent {
  phase: 'end';
  request_id: number;
  label: string;
  duration_seconds: number;
  ts: number;
  active: number;
}

export type ProbeEvent = ProbeStartEvent | ProbeEndEvent;

export interface ProbeCounters {
  started: number;
  completed: number;
  active: number;
  max_active: number;
}

/**
 * Node runs each handler step to completion on one thread, so every method
 * here is atomic without an explicit lock.
 */
export class ProbeState {
  private counters: ProbeCounters = { started: 0, completed: 0, active: 0, max_active: 0 };
  private events: ProbeEvent[] = [];

  constructor(private readonly maxEvents: number) {}

  /** Step 1: returns the request id and the active count just after arrival. */
  start(label: string, delaySeconds: number, tsSeconds: number): { requestId: number; activeAtStart: number } {
    const c = this.counters;
    c.started += 1;
    c.active += 1;
    c.max_active = Math.max(c.max_active, c.active);
    const requestId = c.started;
    this.push({ phase: 'start', request_id: requestId, label, delay_seconds: delaySeconds, ts: tsSeconds, active: c.active });
    return { requestId, activeAtStart: c.active };
  }

  /** Step 3: returns the counters after the request finished. */
  finish(requestId: number, label: string, durationSeconds: number, tsSeconds: number): ProbeCounters {
    const c = this.counters;
    c.active = Math.max(0, c.active - 1);
    c.completed += 1;
    this.push({
      phase: 'end',
      request_id: requestId,
      label,
      duration_seconds: roundTo(durationSeconds, 4),
      ts: tsSeconds,
      active: c.active,
    });
    return { ...c };
  }

  snapshot(): ProbeCounters & { recent_events: ProbeEvent[] } {
    return { ...this.counters, recent_events: [...this.events] };
  }

  reset(): void {
    this.counters = { started: 0, completed: 0, active: 0, max_active: 0 };
    this.events = [];
  }

  private push(event: ProbeEvent): void {
    if (this.maxEvents <= 0) return;
    this.events.push(event);
    if (this.events.length > this.maxEvents) this.events.splice(0, this.events.length - this.maxEvents);
  }
}
