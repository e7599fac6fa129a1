import { EventType, type EventDraft, type EventTypeName } from '@noetl/event-kernel';
import {
  isTerminalCommand,
  TERMINAL_FRAME_STATUSES,
  type CommandRow,
  type Database,
  type FrameRow,
  type LedgerTransaction,
  type Queryable,
} from '@noetl/storage';
import type { Offers } from '../bus/offers';
import type { Ledger } from '../ledger';
import type { EventRows } from '../scheduler/materialize';
import { RuntimeError, notFound } from '../runtime-error';
import {
  AdminActions,
  WORK_KINDS,
  type AdminActionName,
  type AdminActionResult,
  type AdminReasonedRequest,
  type AdminRequest,
  type AdminTargetType,
  type StuckList,
  type StuckQuery,
  type WorkKind,
} from './admin-types';
import type { ObjectCollector } from './object-collector';
import { stuckCommands, stuckFrames } from './stuck-work';

export interface AdminServiceDeps extends Pick<EventRows, 'commandRows' | 'frameRows' | 'executionRows'> {
  db: Database;
  ledger: Ledger;
  /** Offers a reclaimed frame's stage to workers again. */
  offers: Offers;
  /** Asks the scheduler to plan the execution's new events (after the commit). */
  notify: (executionId: string) => void;
  /** With an object tier: after a purge it deletes the objects nothing references any more. */
  objectCollector?: ObjectCollector;
}

const DEFAULT_ACTOR = 'admin';
const DEFAULT_STUCK_LIMIT = 100;
const MAX_STUCK_LIMIT = 1000;

/** The envelope fields that place an event on its target (the step, the command or the frame). */
type Placement = Pick<EventDraft<EventTypeName>, 'executionId' | 'step' | 'commandId' | 'stageId' | 'frameId' | 'loopId'>;

interface Target {
  type: AdminTargetType;
  id: string;
  placement: Placement;
}

/**
 * Stuck work made visible and actionable (DESIGN.md s4 "Reaper and timers").
 * Each action is one transaction under the execution's stream lock: one
 * `admin.action` event (who, what, why), the effect's events caused by it,
 * and the derived rows; the scheduler is told after the commit and plans the
 * rest as it would for the reaper or a worker (a next attempt, a retry, a
 * failed step). A target that already ended is `already_terminal` and
 * nothing is recorded.
 */
export class AdminService {
  constructor(private readonly deps: AdminServiceDeps) {}

  async stuck(query: StuckQuery = {}): Promise<StuckList> {
    if (query.kind !== undefined && !WORK_KINDS.includes(query.kind)) {
      throw new RuntimeError('invalid_request', `kind must be one of ${WORK_KINDS.join(', ')}`);
    }
    const limit = Math.min(Math.max(query.limit ?? DEFAULT_STUCK_LIMIT, 1), MAX_STUCK_LIMIT);
    const { db, ledger } = this.deps;
    const [commands, frames] = await Promise.all([
      query.kind === 'frame' ? [] : stuckCommands(db, this.deps.commandRows, ledger.scope, limit),
      query.kind === 'command' ? [] : stuckFrames(db, this.deps.frameRows, ledger.scope, limit),
    ]);
    // Ids are time-ordered across kinds: the oldest work first.
    const stuck = [...commands, ...frames].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)).slice(0, limit);
    return { stuck };
  }

  /**
   * Takes the work from its holder, as the reaper does when a lease expires:
   * a command is abandoned (the planner issues its next attempt, or fails the
   * step when none is left); a frame goes back to PENDING to be claimed again.
   */
  async reclaim(kind: WorkKind, id: string, request: AdminRequest = {}): Promise<AdminActionResult> {
    return kind === 'command' ? this.reclaimCommand(id, request) : this.reclaimFrame(id, request);
  }

  /** Fails the work with `{kind: 'admin', message: reason}`; the planner's retry policies decide as for any failure. */
  async fail(kind: WorkKind, id: string, request: AdminReasonedRequest): Promise<AdminActionResult> {
    const reason = requireReason(request);
    return kind === 'command' ? this.failCommand(id, { ...request, reason }) : this.failFrame(id, { ...request, reason });
  }

  /**
   * Force-fails a stuck execution: `execution.failed {kind: 'admin'}`, then
   * its open commands are cancelled, as the planner does when it fails one.
   */
  async finalize(executionId: string, request: AdminReasonedRequest): Promise<AdminActionResult> {
    const reason = requireReason(request);
    const { db, ledger } = this.deps;
    const result = await db.transaction(async (q) => {
      await this.lockRunningExecution(q, executionId);
      const open = await this.deps.commandRows.lockOpenOf(q, executionId);
      const target: Target = { type: 'execution', id: executionId, placement: { executionId } };
      const audit = await this.record(q, target, AdminActions.finalize, { ...request, reason });
      const appended = await ledger.append(q, [
        {
          type: EventType.ExecutionFailed,
          executionId,
          causationId: audit,
          status: 'FAILED',
          payload: { error: { kind: 'admin', message: reason } },
        },
        ...open.map((command) => ({
          type: EventType.CommandCancelled,
          executionId,
          step: command.step,
          commandId: command.command_id,
          causationId: audit,
          payload: { reason: `execution finalized by admin: ${reason}` },
        })),
      ]);
      for (const { event } of appended.slice(1)) {
        if (event.command_id) await this.deps.commandRows.end(q, event.command_id, 'CANCELLED', event.event_id);
      }
      return actionResult(target, AdminActions.finalize, audit, 'FAILED');
    });
    this.deps.notify(executionId);
    return result;
  }

  /** `execution.cancelled {by: actor}`; the scheduler then cancels its open commands and children. */
  async cancelExecution(executionId: string, request: AdminRequest = {}): Promise<AdminActionResult> {
    const { db, ledger } = this.deps;
    const result = await db.transaction(async (q) => {
      await this.lockRunningExecution(q, executionId);
      const target: Target = { type: 'execution', id: executionId, placement: { executionId } };
      const audit = await this.record(q, target, AdminActions.cancel, request);
      await ledger.append(q, [
        {
          type: EventType.ExecutionCancelled,
          executionId,
          causationId: audit,
          // The key ExecutionService.cancel uses: one cancellation per execution, whoever asks.
          idempotencyKey: `cancel:${executionId}`,
          payload: { ...(request.reason ? { reason: request.reason } : {}), by: actorOf(request) },
        },
      ]);
      return actionResult(target, AdminActions.cancel, audit, 'CANCELLED');
    });
    this.deps.notify(executionId);
    return result;
  }

  /**
   * Retention, the one way events leave the ledger (migration
   * AppendOnlyLedger1795900000001): an ended execution keeps its
   * `execution.started`, its terminal event and its audits, and loses every
   * other event and the rows derived from them; the purge's own
   * `admin.action` says who did it and why, and the database refuses the
   * deletes without it. A running execution is not purged. With an object
   * tier, the objects no event references any more go too, once older than
   * the grace period (ObjectCollector).
   */
  async purge(executionId: string, request: AdminReasonedRequest): Promise<AdminActionResult> {
    const reason = requireReason(request);
    const { db, ledger } = this.deps;
    const result = await db.transaction(async (q) => {
      if (!(await this.deps.executionRows.exists(q, ledger.scope, executionId))) throw notFound('execution', executionId);
      await ledger.lockStream(q, executionId);
      if (!(await ledger.hasEnded(q, executionId))) {
        throw new RuntimeError('invalid_request', `execution ${executionId} is running: only an ended execution is purged`);
      }
      // The row follows the ledger after the scheduler's pass; just after the end it may still say RUNNING.
      const row = await this.deps.executionRows.cursor(q, ledger.scope, executionId);
      const status = row && row.status !== 'RUNNING' ? row.status : 'ENDED';
      const target: Target = { type: 'execution', id: executionId, placement: { executionId } };
      const audit = await this.record(q, target, AdminActions.purge, { ...request, reason });
      await this.deps.executionRows.purge(q, executionId);
      return actionResult(target, AdminActions.purge, audit, status);
    });
    // After the commit, off the request's path: the objects only the purged events named.
    void this.deps.objectCollector?.request();
    return result;
  }

  private async reclaimCommand(commandId: string, request: AdminRequest): Promise<AdminActionResult> {
    return this.onCommand(commandId, async (q, command, target) => {
      if (command.status === 'ISSUED') {
        throw new RuntimeError('invalid_request', `command ${commandId} is ISSUED: no worker holds it, so there is nothing to reclaim`);
      }
      const audit = await this.record(q, target, AdminActions.reclaim, request);
      const [abandoned] = await this.deps.ledger.append(q, [
        {
          type: EventType.CommandAbandoned,
          ...target.placement,
          causationId: audit,
          // The reaper's key: a command is abandoned once, by the reaper or by an admin.
          idempotencyKey: `abandoned:${commandId}`,
          payload: {
            attempt: command.attempt,
            reason: 'reclaimed by admin',
            ...(command.worker_id ? { worker_id: command.worker_id } : {}),
            ...(command.lease_until ? { lease_until: command.lease_until.toISOString() } : {}),
          },
        },
      ]);
      await this.deps.commandRows.end(q, commandId, 'ABANDONED', abandoned?.event.event_id ?? null);
      return actionResult(target, AdminActions.reclaim, audit, 'ABANDONED');
    });
  }

  private async failCommand(commandId: string, request: AdminReasonedRequest): Promise<AdminActionResult> {
    return this.onCommand(commandId, async (q, _command, target) => {
      const audit = await this.record(q, target, AdminActions.fail, request);
      const [failed] = await this.deps.ledger.append(q, [
        {
          type: EventType.CommandFailed,
          ...target.placement,
          causationId: audit,
          status: 'FAILED',
          payload: { error: { kind: 'admin', message: request.reason } },
        },
      ]);
      await this.deps.commandRows.end(q, commandId, 'FAILED', failed?.event.event_id ?? null);
      return actionResult(target, AdminActions.fail, audit, 'FAILED');
    });
  }

  private async reclaimFrame(frameId: string, request: AdminRequest): Promise<AdminActionResult> {
    const { offers } = this.deps;
    // After the commit, the frame's stage is offered to workers again (its frame is claimable).
    let offer: { stageId: string; executionId: string; kinds: string[] } | undefined;
    const result = await this.onFrame(frameId, async (q, frame, target) => {
      if (frame.status === 'PENDING') {
        throw new RuntimeError('invalid_request', `frame ${frameId} is PENDING: no worker holds it, so there is nothing to reclaim`);
      }
      const audit = await this.record(q, target, AdminActions.reclaim, request);
      await this.deps.ledger.append(q, [
        {
          type: EventType.FrameAbandoned,
          ...target.placement,
          causationId: audit,
          payload: {
            frame_id: frameId,
            attempt: frame.attempts,
            reason: 'reclaimed by admin',
            ...(frame.owner_worker ? { worker_id: frame.owner_worker } : {}),
          },
        },
      ]);
      await this.deps.frameRows.release(q, frameId);
      offer = { stageId: frame.stage_id, executionId: frame.execution_id, kinds: frame.tools };
      return actionResult(target, AdminActions.reclaim, audit, 'PENDING');
    });
    if (offer) await offers.stage({ slots: 1, ...offer });
    return result;
  }

  private async failFrame(frameId: string, request: AdminReasonedRequest): Promise<AdminActionResult> {
    return this.onFrame(frameId, async (q, frame, target) => {
      const audit = await this.record(q, target, AdminActions.fail, request);
      const [failed] = await this.deps.ledger.append(q, [
        {
          type: EventType.FrameFailed,
          ...target.placement,
          causationId: audit,
          status: 'FAILED',
          payload: {
            frame_id: frameId,
            stage_id: frame.stage_id,
            frame_index: frame.frame_index,
            error: { kind: 'admin', message: request.reason },
            attempt: frame.attempts,
          },
        },
      ]);
      await this.deps.frameRows.markFailed(q, frameId, failed?.event.event_id ?? null);
      return actionResult(target, AdminActions.fail, audit, 'FAILED');
    });
  }

  /** Runs `act` on the locked, open command of a running execution, in one transaction; then tells the scheduler. */
  private async onCommand(
    commandId: string,
    act: (q: Queryable, command: CommandRow, target: Target) => Promise<AdminActionResult>,
  ): Promise<AdminActionResult> {
    const { db, ledger } = this.deps;
    const result = await db.transaction(async (q) => {
      const command = await this.deps.commandRows.lock(q, ledger.scope, commandId);
      if (!command) throw notFound('command', commandId);
      if (isTerminalCommand(command.status))
        throw new RuntimeError('already_terminal', `command ${commandId} is already ${command.status}`);
      await this.assertNotEnded(q, command.execution_id, `command ${commandId}`);
      const placement: Placement = { executionId: command.execution_id, step: command.step, commandId };
      return act(q, command, { type: 'command', id: commandId, placement });
    });
    this.deps.notify(result.execution_id);
    return result;
  }

  /** Runs `act` on the locked, open frame of a running execution, in one transaction; then tells the scheduler. */
  private async onFrame(
    frameId: string,
    act: (q: Queryable, frame: FrameRow, target: Target) => Promise<AdminActionResult>,
  ): Promise<AdminActionResult> {
    const { db, ledger } = this.deps;
    const result = await db.transaction(async (q) => {
      const frame = await this.deps.frameRows.lock(q, ledger.scope, frameId);
      if (!frame) throw notFound('frame', frameId);
      if (TERMINAL_FRAME_STATUSES.includes(frame.status))
        throw new RuntimeError('already_terminal', `frame ${frameId} is already ${frame.status}`);
      await this.assertNotEnded(q, frame.execution_id, `frame ${frameId}`);
      const placement: Placement = {
        executionId: frame.execution_id,
        step: frame.step_name,
        stageId: frame.stage_id,
        frameId,
        loopId: frame.loop_id,
      };
      return act(q, frame, { type: 'frame', id: frameId, placement });
    });
    this.deps.notify(result.execution_id);
    return result;
  }

  /** Takes the execution's stream lock; `not_found` when unknown to this tenant, `already_terminal` when it ended. */
  private async lockRunningExecution(q: LedgerTransaction, executionId: string): Promise<void> {
    const { ledger } = this.deps;
    if (!(await this.deps.executionRows.exists(q, ledger.scope, executionId))) throw notFound('execution', executionId);
    await ledger.lockStream(q, executionId);
    await this.assertNotEnded(q, executionId, `execution ${executionId}`);
  }

  /** Under the stream lock, so no terminal event can land before the action's own events. */
  private async assertNotEnded(q: Queryable, executionId: string, what: string): Promise<void> {
    if (await this.deps.ledger.hasEnded(q, executionId)) {
      const of = what.startsWith('execution') ? '' : ` of ${what}`;
      throw new RuntimeError('already_terminal', `execution ${executionId}${of} already ended`);
    }
  }

  /** The one `admin.action` of an action; returns its event id (the cause of the effect's events). */
  private async record(q: Queryable, target: Target, action: AdminActionName, request: AdminRequest): Promise<string> {
    const [appended] = await this.deps.ledger.append(q, [
      {
        type: EventType.AdminAction,
        ...target.placement,
        payload: {
          actor: actorOf(request),
          action,
          target_type: target.type,
          target_id: target.id,
          ...(request.reason ? { reason: request.reason } : {}),
        },
      },
    ]);
    if (!appended) throw new Error('append returned no result');
    return appended.event.event_id;
  }
}

function actorOf(request: AdminRequest): string {
  return request.actor?.trim() || DEFAULT_ACTOR;
}

function requireReason(request: AdminRequest): string {
  const reason = request.reason?.trim();
  if (!reason) throw new RuntimeError('invalid_request', 'a reason is required: it becomes the error message');
  return reason;
}

function actionResult(target: Target, action: AdminActionName, eventId: string, status: string): AdminActionResult {
  return { action, target_type: target.type, target_id: target.id, execution_id: target.placement.executionId, event_id: eventId, status };
}
