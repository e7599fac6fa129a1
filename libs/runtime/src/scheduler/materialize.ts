import { EventType, type ExecutionState, type IdGenerator, type LedgerEvent } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';
import { insertStage } from './stage-rows';

/** What a planned batch asks of the world once its transaction committed. */
export interface Effects {
  /** Commands to offer to workers (the offer is this very message). */
  work: { command_id: string; execution_id: string; kind: string }[];
  /** New timers, to fire on time rather than at the next sweep. */
  timers: ArmedTimer[];
  /** Commands cancelled: a `playbook` command's child is cancelled too. */
  cancelledCommands: string[];
  /** Stages opened: offer their frames to workers, one message per frame slot. */
  stages: { stage_id: string; execution_id: string; slots: number }[];
}

/** A durable timer row just written. */
export interface ArmedTimer {
  timerId: string;
  dueAt: Date;
}

export function noEffects(): Effects {
  return { work: [], timers: [], cancelledCommands: [], stages: [] };
}

/**
 * Keeps the derived tables in step with the events the scheduler plans
 * (DESIGN.md s4 step 3): the command row of a `command.issued`, the timer row
 * of a delay, a cancelled command's row, a stage and its frames. Same
 * transaction as the events; `state` is the state after `event`.
 */
export async function materialize(
  q: Queryable,
  world: { scope: TenantScope; ids: IdGenerator },
  event: LedgerEvent,
  state: ExecutionState,
  effects: Effects,
): Promise<void> {
  const { scope } = world;
  switch (event.event_type) {
    case EventType.CommandIssued: {
      const p = event.payload;
      await q.query(
        `INSERT INTO noetl.command (command_id, execution_id, tenant_id, organization_id, step, run_id, kind, attempt, max_attempts,
                                    status, spec, issued_event_id, notified_at, loop_id, iteration)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'ISSUED', $10::jsonb, $11, now(), $12, $13)
         ON CONFLICT (command_id) DO NOTHING`,
        [
          p.command_id,
          event.execution_id,
          scope.tenantId,
          scope.organizationId,
          p.step,
          p.run_id,
          p.kind,
          p.attempt,
          p.max_attempts,
          JSON.stringify(p.spec),
          event.event_id,
          p.loop_id ?? null,
          p.iteration ?? null,
        ],
      );
      effects.work.push({ command_id: p.command_id, execution_id: event.execution_id, kind: p.kind });
      return;
    }
    case EventType.RetryScheduled:
    case EventType.TimerScheduled: {
      const p = event.payload;
      const purpose = event.event_type === EventType.RetryScheduled ? 'retry' : 'sleep';
      await q.query(
        `INSERT INTO noetl.timer (timer_id, execution_id, tenant_id, organization_id, purpose, due_at, payload, created_event_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) ON CONFLICT (timer_id) DO NOTHING`,
        [p.timer_id, event.execution_id, scope.tenantId, scope.organizationId, purpose, p.due_at, JSON.stringify(p), event.event_id],
      );
      effects.timers.push({ timerId: p.timer_id, dueAt: new Date(p.due_at) });
      return;
    }
    case EventType.CommandCancelled: {
      if (!event.command_id) return;
      await q.query(
        `UPDATE noetl.command SET status = 'CANCELLED', completed_at = now(), lease_until = NULL, terminal_event_id = $2
          WHERE command_id = $1::bigint AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED', 'ABANDONED')`,
        [event.command_id, event.event_id],
      );
      effects.cancelledCommands.push(event.command_id);
      return;
    }
    case EventType.StageOpened: {
      const p = event.payload;
      const slots = await insertStage(q, scope, world.ids, event.execution_id, event.event_id, p, state.loops[p.loop_id]);
      if (slots > 0) effects.stages.push({ stage_id: p.stage_id, execution_id: event.execution_id, slots });
      return;
    }
    case EventType.StageClosed:
      await q.query(`UPDATE noetl.stage SET status = 'CLOSED', ended_at = now(), closed_event_id = $2 WHERE stage_id = $1::bigint`, [
        event.payload.stage_id,
        event.event_id,
      ]);
      return;
    default:
      return;
  }
}
