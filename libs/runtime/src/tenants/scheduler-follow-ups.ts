import type { ExecutionState } from '@noetl/event-kernel';
import type { TenantScope } from '@noetl/storage';
import type { ArmedTimer } from '../scheduler/materialize';
import type { RetryLane } from '../scheduler/retry-lane';
import type { SchedulerFollowUps } from '../scheduler/scheduler-types';

/**
 * Where a tenant's committed passes send their follow-ups: a timer to the
 * deployment's retry lane when there is one, the rest (and the timers
 * without a lane) to the sweeper, handed in once it is built.
 *
 * Why a relay: the scheduler and the sweeper need each other at run time,
 * not only to be built. A pass arms a timer that the sweeper fires and then
 * plans (Scheduler.process); a child's end reaches its parent through the
 * control plane, which plans in a report's transaction (planWithin), so the
 * control plane, and the sweeper that calls it, come after the scheduler.
 * A sweeper that planned through a function or the bus would still need
 * the control plane, so one edge of the cycle has to be joined once both
 * exist; this is the one, a notification made only by a committed pass,
 * and no pass runs while TenantRuntime's constructor (synchronous) builds
 * the tenant, so nothing is called before it is built. The other ways
 * change behaviour or spread the cycle: through the bus, the sweeper's
 * executions would be planned by whichever scheduler takes the notice; a
 * `committed()` returning the follow-ups would make every caller of a pass
 * (the executions service, the control plane) hold the sweeper. As before,
 * a follow-up runs right after the commit, in this process, in the pass's order.
 */
export class SchedulerFollowUpsRelay implements SchedulerFollowUps {
  private sweeper: SchedulerFollowUps | undefined;

  constructor(
    private readonly scope: TenantScope,
    private readonly lane: RetryLane | undefined,
  ) {}

  /** The sweeper takes every follow-up from now on (TenantRuntime does this as it builds the tenant). */
  handTo(sweeper: SchedulerFollowUps): void {
    this.sweeper = sweeper;
  }

  timerArmed(timer: ArmedTimer): void {
    if (this.lane) void this.lane.schedule(timer.timerId, timer.dueAt, this.scope);
    else this.sweeper?.timerArmed(timer);
  }

  commandCancelled(commandId: string): void {
    this.sweeper?.commandCancelled(commandId);
  }

  executionEnded(state: ExecutionState): void {
    this.sweeper?.executionEnded(state);
  }
}
