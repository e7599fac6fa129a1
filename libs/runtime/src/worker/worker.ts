import { toCallErrorInfo, type ExpressionEngine } from '@noetl/dsl';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { QueueGroups, Subjects, type Bus, type Unsubscribe } from '../bus/bus';
import type { ClaimedCommand, ControlPlane, HeartbeatResult } from '../control-plane/control-plane';
import type { RuntimeMetrics } from '../metrics';
import { RuntimeError } from '../runtime-error';
import { eventErrorOf } from './call-errors';
import { renderChildCall, runCommand, workerRun, type WorkerRun } from './command-runner';
import { runClaimedFrame } from './frame-runner';
import { runNestedChild } from './nested-child';

export interface WorkerOptions {
  controlPlane: ControlPlane;
  bus: Bus;
  tenantId: string;
  tools: ToolRegistry;
  engine: ExpressionEngine;
  metrics: RuntimeMetrics;
  logger: Logger;
  concurrency: number;
  leaseMs: number;
  pythonEnabled: boolean;
}

/**
 * Executes and reports; never routes (DESIGN.md invariant 2). Offers arrive
 * on the bus (a command id); up to `concurrency` commands run at once. Each
 * is claimed (a lease), heartbeated at a third of the lease, run, and
 * reported. A heartbeat that says cancelled, or a lost lease, aborts the
 * call and nothing is reported: the command is no longer this worker's.
 */
export class Worker {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** Offers waiting for a free slot: a command to claim, or a stage to claim a frame of. */
  private readonly queue: Offer[] = [];
  private readonly queuedCommands = new Set<string>();
  private readonly inFlight = new Set<AbortController>();
  private readonly unsubscribe: Unsubscribe[] = [];
  private stopping = false;

  constructor(private readonly options: WorkerOptions) {}

  start(): void {
    const { bus, tenantId } = this.options;
    this.unsubscribe.push(
      bus.subscribe(
        Subjects.work(tenantId),
        (message) => {
          if (typeof message['command_id'] === 'string') this.offer({ kind: 'command', id: message['command_id'] });
        },
        { queue: QueueGroups.workers },
      ),
      // Each message is one frame slot of a stage: several may arrive for one stage, and each runs.
      bus.subscribe(
        Subjects.frames(tenantId),
        (message) => {
          if (typeof message['stage_id'] === 'string') this.offer({ kind: 'stage', id: message['stage_id'] });
        },
        { queue: QueueGroups.workers },
      ),
    );
  }

  /** Aborts running calls (their leases run out and the reaper re-issues them) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.queue.length = 0;
    this.queuedCommands.clear();
    for (const controller of this.inFlight) controller.abort();
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  offer(offer: Offer): void {
    if (this.stopping) return;
    if (offer.kind === 'command') {
      if (this.queuedCommands.has(offer.id)) return;
      this.queuedCommands.add(offer.id);
    }
    this.queue.push(offer);
    this.pump();
  }

  private pump(): void {
    while (!this.stopping && this.inFlight.size < this.options.concurrency && this.queue.length > 0) {
      const offer = this.queue.shift()!;
      if (offer.kind === 'command') this.queuedCommands.delete(offer.id);
      const controller = new AbortController();
      this.inFlight.add(controller);
      const run = offer.kind === 'command' ? this.execute(offer.id, controller) : this.executeFrame(offer.id, controller);
      void run
        .catch((error: unknown) => this.options.logger.error({ err: error, [`${offer.kind}_id`]: offer.id }, `${offer.kind} run failed`))
        .finally(() => {
          this.inFlight.delete(controller);
          this.pump();
        });
    }
  }

  /** Claims a frame of the stage, interprets its rows, commits it; nothing claimable is fine (the offer was stale). */
  private async executeFrame(stageId: string, controller: AbortController): Promise<void> {
    const { controlPlane } = this.options;
    const frame = await controlPlane.claimFrame(stageId, { worker_id: this.workerId }).catch((error: unknown) => {
      if (error instanceof RuntimeError) return null;
      throw error;
    });
    if (!frame) return;
    const log = this.options.logger.child({ execution_id: frame.execution_id, step: frame.step, frame_id: frame.frame_id });
    const beat = (): Promise<HeartbeatResult> => controlPlane.heartbeatFrame(frame.frame_id, { worker_id: this.workerId, lease_ms: frame.lease_ms });
    const heartbeat = this.keepLease(beat, frame.lease_ms, controller, log);
    try {
      const report = await runClaimedFrame(frame, controller.signal, this.interpreterFor(
          { executionId: frame.execution_id, step: frame.step, scope: frame.scope, holder: { kind: 'frame', id: frame.frame_id }, attempt: frame.attempt },
          async (name) => (await controlPlane.resolveFrameCredential(frame.frame_id, { worker_id: this.workerId, name })).data,
        ));
      if (controller.signal.aborted) return;
      const send =
        report.status === 'COMMITTED'
          ? controlPlane.commitFrame(frame.frame_id, { worker_id: this.workerId, ...report.request })
          : controlPlane.failFrame(frame.frame_id, { worker_id: this.workerId, ...report.request });
      await send.catch((error: unknown) => {
        if (error instanceof RuntimeError) log.warn({ code: error.code }, `frame report refused: ${error.message}`);
        else throw error;
      });
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async execute(commandId: string, controller: AbortController): Promise<void> {
    const { controlPlane, leaseMs } = this.options;
    let command: ClaimedCommand;
    try {
      command = await controlPlane.claim(commandId, { worker_id: this.workerId, lease_ms: leaseMs });
    } catch (error) {
      // Another worker took it, it ended, or it is unknown: the offer was stale.
      if (error instanceof RuntimeError) return;
      throw error;
    }
    const log = this.options.logger.child({ execution_id: command.execution_id, step: command.step, command_id: commandId });
    const beat = (): Promise<HeartbeatResult> => controlPlane.heartbeat(commandId, { worker_id: this.workerId, lease_ms: leaseMs });
    const heartbeat = this.keepLease(beat, leaseMs, controller, log);
    try {
      const run = this.interpreterFor(
        { executionId: command.execution_id, step: command.step, scope: command.scope, holder: { kind: 'command', id: commandId }, attempt: command.attempt },
        async (name) => (await controlPlane.resolveCredential(commandId, { worker_id: this.workerId, name })).data,
      );
      if (command.kind === 'playbook') {
        await this.startChild(command, run, controller.signal);
        return;
      }
      const report = await runCommand(command, controller.signal, run);
      if (controller.signal.aborted) return;
      this.options.metrics.stepDuration.observe({ kind: command.kind }, (report.request.duration_ms ?? 0) / 1000);
      const send =
        report.status === 'COMPLETED'
          ? controlPlane.complete(commandId, { worker_id: this.workerId, ...report.request })
          : controlPlane.fail(commandId, { worker_id: this.workerId, ...report.request });
      await send.catch((error: unknown) => {
        if (error instanceof RuntimeError) log.warn({ code: error.code }, `report refused: ${error.message}`);
        else throw error;
      });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** A `playbook` step: render the call, start the child, and let go (the child's end completes the command). */
  private async startChild(command: ClaimedCommand, run: WorkerRun, signal: AbortSignal): Promise<void> {
    const fail = (error: Parameters<typeof eventErrorOf>[0]): Promise<void> =>
      this.options.controlPlane.fail(command.command_id, { worker_id: this.workerId, error: run.secrets.scrub(eventErrorOf(error, command.step)) });
    let call: Awaited<ReturnType<typeof renderChildCall>>;
    try {
      call = await renderChildCall(command, run, signal);
    } catch (error) {
      await fail(toCallErrorInfo(error));
      return;
    }
    const { path, ...rest } = call;
    if (path === undefined) {
      await fail({ kind: 'internal', message: `playbook step ${command.step} needs a "path"`, retryable: false });
      return;
    }
    await this.options.controlPlane.startChild(command.command_id, { worker_id: this.workerId, path, ...rest });
  }

  /** The interpreter for one run of a command or frame; `playbook` calls in it start children keyed by attempt and order. */
  private interpreterFor(run: HeldRun, resolveCredential: (name: string) => Promise<Record<string, unknown>>): WorkerRun {
    const { executionId, step, scope, holder, attempt } = run;
    const log = this.options.logger.child({ execution_id: executionId, step });
    let children = 0;
    return workerRun(
      {
        tools: this.options.tools,
        engine: this.options.engine,
        pythonEnabled: this.options.pythonEnabled,
        resolveCredential,
        onOutput: (stream, text) => log.debug({ stream }, text),
        runChild: (config, signal) =>
          runNestedChild(this.options.controlPlane, { worker_id: this.workerId, holder, key: `${attempt}:${children++}` }, config, signal),
      },
      { executionId, step, scope },
    );
  }

  /** Heartbeats at a third of the lease; a cancelled execution or a lost lease aborts the run. */
  private keepLease(beat: () => Promise<HeartbeatResult>, leaseMs: number, controller: AbortController, log: Logger): NodeJS.Timeout {
    const timer = setInterval(() => {
      beat()
        .then((result) => {
          if (result.cancelled) {
            log.info('execution cancelled; aborting');
            controller.abort();
          }
        })
        .catch((error: unknown) => {
          if (error instanceof RuntimeError) {
            log.warn({ code: error.code }, 'lease lost; aborting');
            controller.abort();
          } else log.warn({ err: error }, 'heartbeat failed; retrying at the next beat');
        });
    }, Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref();
    return timer;
  }
}

type Offer = { kind: 'command'; id: string } | { kind: 'stage'; id: string };

/** A claimed command or frame, as its interpreter needs it. */
interface HeldRun {
  executionId: string;
  step: string;
  scope: Record<string, unknown>;
  holder: { kind: 'command' | 'frame'; id: string };
  attempt: number;
}
