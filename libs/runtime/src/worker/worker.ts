import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClaimRequest, ClaimedCommand, ClaimedFrame, ControlPlane, HeartbeatResult, Holder } from '../control-plane/control-plane';
import type { TenantScope, WorkerReport } from '@noetl/storage';
import { takes, type WorkNeeds } from '../bus/offers';
import type { SlotReservation } from '../scheduler/eager-claims';
import { RuntimeError } from '../runtime-error';
import { runCommand } from './command-runner';
import { runClaimedFrame } from './frame-runner';
import { retryableLookup } from './api-lookups';
import { OutputTail } from './output-tail';
import { keepLease } from './keep-lease';
import { deliver, giveBack } from './report-delivery';
import { interpreterFor, type InterpreterContext } from './run-interpreter';
import { runShard } from './shard-runner';
import { startChild } from './start-child';
import { DEFAULT_STREAM_MAX_PENDING_CHUNKS, StreamPacer } from './stream-pacer';
import type { WorkerOptions } from './worker-options';
import { contextOf, executionContext, inSpan, stepRunContext } from '../tracing/tracing';

/**
 * What the bus offers a worker: a command to claim, or a stage to claim a
 * frame of, of a tenant. `alone`: the command must run with nothing else
 * beside it on this worker (its run lost a worker before; see the planner's
 * `onCommandAbandoned`).
 */
export interface Offer {
  kind: 'command' | 'stage';
  id: string;
  scope: TenantScope;
  alone?: boolean;
  /** The W3C trace context the offer came with (the step run's): the run's span is its child. */
  traceparent?: string;
}

/**
 * Executes and reports; never routes (DESIGN.md invariant 2). Offers arrive
 * from the transport (`offer`: a command id or a stage id); up to
 * `concurrency` run at once. Each is claimed (a lease), heartbeated at a
 * third of the lease, run, and reported. A heartbeat that says cancelled, or
 * a lost lease, aborts the call and nothing is reported: the command is no
 * longer this worker's. It reports its capacity to the registry, by which the
 * scheduler targets its offers, and on `stop` it drains: it takes no more
 * offers, lets what runs finish within the grace period, and gives back
 * (releases) whatever is still running then, so nothing waits for the reaper.
 * A command offered `alone` waits until nothing else runs here, and nothing
 * else starts during its first `ALONE_MS`: a step that takes its process
 * down does so early, and then did so alone. After that, it tells the
 * control plane it runs alone no more (a heartbeat with `alone: false`),
 * and only then lets other work start beside it: a slow command that once
 * lost its worker does not hold the whole worker for as long as it runs.
 */
export class Worker {
  readonly workerId: string;
  /** Offers waiting for a free slot: a command to claim, or a stage to claim a frame of. */
  private readonly queue: Offer[] = [];
  private readonly queuedCommands = new Set<string>();
  private readonly inFlight = new Set<AbortController>();
  /** The commands and frames whose run is done and whose report is being sent, while their run's slot may still be handed on (see `reserve`). */
  private readonly handable = new Set<string>();
  private stopping = false;
  /** Set once the grace period is over: aborted runs give their work back instead of reporting. */
  private releasing = false;
  private reportTimer?: NodeJS.Timeout;
  /** A command offered `alone` is running: nothing else starts. */
  private runningAlone = false;
  /** Slots handed from a reporting run to the next command while offers waited, since the queue last started one. */
  private continuations = 0;
  /** What the interpreters of its runs share, its streams' pacer among it (holds each stream's producer while its consumers are behind). */
  private readonly interpreters: InterpreterContext;
  /** Why the registry does not know this worker as it is now (its last report failed); undefined once a report went through. */
  private unregistered: string | undefined = 'it has not reported to the registry yet';

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    const { tools, render, pythonEnabled, logger, metrics } = options;
    const pacer = new StreamPacer(options.streamMaxPendingChunks ?? DEFAULT_STREAM_MAX_PENDING_CHUNKS, metrics);
    this.interpreters = { tools, render, pythonEnabled, logger, workerId: this.workerId, pacer };
  }

  /** Registers with the registry and keeps reporting its capacity. */
  start(): void {
    void this.report('ACTIVE');
    this.reportTimer = setInterval(() => void this.report('ACTIVE'), this.options.reportEveryMs ?? 5000);
    this.reportTimer.unref();
  }

  /**
   * Drains: no more offers; what runs gets `graceMs` to finish; then the rest
   * is aborted and released (claimable again at once, no attempt spent).
   */
  async stop(graceMs = 0): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.reportTimer);
    this.queue.length = 0;
    this.queuedCommands.clear();
    // The grace period starts now, not after the report's round trip.
    const deadline = Date.now() + graceMs;
    const draining = this.report('DRAINING');
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    this.releasing = true;
    for (const controller of this.inFlight) controller.abort();
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await draining;
    await this.report('STOPPED');
  }

  /** Its capacity, for GET /api/workers and targeted offers; a failed report is retried at the next beat. */
  private async report(status: WorkerReport['status']): Promise<void> {
    const { concurrency, kinds, pool } = this.options;
    await this.options
      .controlPlanes(this.options.scope)
      .reportWorker({
        worker_id: this.workerId,
        node: hostname(),
        ...(pool ? { pool } : {}),
        ...(kinds ? { tools: kinds } : {}),
        slots: concurrency,
        free_slots: status === 'ACTIVE' ? Math.max(0, concurrency - this.inFlight.size - this.queue.length) : 0,
        status,
      })
      .then(
        () => (this.unregistered = undefined),
        (error: unknown) => {
          this.unregistered = `its report to the registry failed: ${error instanceof Error ? error.message : String(error)}`;
          this.options.logger.warn({ err: error }, 'worker report failed; the next beat retries');
        },
      );
  }

  /**
   * Why this worker cannot take work, for its readiness probe: its last
   * report to the registry failed (a worker the API refuses, say for a
   * missing key, would otherwise look ready while every claim fails).
   * Undefined when it is registered.
   */
  get notReadyBecause(): string | undefined {
    return this.unregistered;
  }

  /**
   * Holds a slot for a command this process's scheduler claims for this
   * worker in the transaction that issues it (eager dispatch, see
   * scheduler/eager-claims.ts): no offer, no claim round trip. The run of
   * this worker whose report on `after` (a command or frame id) leads to
   * the command hands its own slot on, once, so an execution that started
   * goes on before more start (depth first, as a workflow engine runs a
   * workflow), at most MAX_CONTINUATIONS times in a row while offers wait;
   * anything else needs a free slot and an empty queue (offers came first).
   * Undefined when neither, or the worker is stopping or does not take
   * `work` (another pool's, or a kind it does not run). The holder runs the
   * claimed command in the slot once its claim committed, or cancels.
   */
  reserve(scope: TenantScope, work: WorkNeeds, after?: string): SlotReservation | undefined {
    if (this.stopping || this.runningAlone) return undefined;
    if (!takes({ ...(this.options.kinds ? { tools: this.options.kinds } : {}), pool: this.options.pool }, work)) return undefined;
    if (after !== undefined && this.handable.has(after)) {
      if (this.queue.length > 0 && this.continuations >= MAX_CONTINUATIONS) return undefined;
      this.handable.delete(after);
      if (this.queue.length > 0) this.continuations++;
    } else if (this.queue.length > 0 || this.inFlight.size >= this.options.concurrency) {
      return undefined;
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    let settled = false;
    const free = (): void => {
      this.inFlight.delete(controller);
      this.pump();
    };
    const start = (failed: string, fields: Record<string, string>, run: () => Promise<void>): void => {
      if (settled) return;
      settled = true;
      void run()
        .catch((error: unknown) => this.options.logger.error({ err: error, ...fields }, failed))
        .finally(free);
    };
    return {
      workerId: this.workerId,
      run: (command) =>
        start('command run failed', { command_id: command.command_id }, () =>
          this.runHeld(this.options.controlPlanes(scope), command, { kind: 'command', id: command.command_id, scope }, controller),
        ),
      runFrame: (assemble) =>
        start('frame run failed (a frame not assembled runs again once its lease is reaped)', {}, async () =>
          this.runHeldFrame(this.options.controlPlanes(scope), await assemble(), controller),
        ),
      cancel: () => {
        if (settled) return;
        settled = true;
        free();
      },
    };
  }

  /** An offer from the transport; several for one stage each run (one per frame slot). */
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
    while (!this.stopping && !this.runningAlone && this.queue.length > 0) {
      const next = this.queue[0]!;
      const alone = next.kind === 'command' && next.alone === true;
      // First in, first out: an offer to run alone waits for the running work to end, and what came after it waits for it.
      if (alone ? this.inFlight.size > 0 : this.inFlight.size >= this.options.concurrency) return;
      const offer = this.queue.shift()!;
      this.continuations = 0;
      if (offer.kind === 'command') this.queuedCommands.delete(offer.id);
      const controller = new AbortController();
      this.inFlight.add(controller);
      this.runningAlone = alone;
      const controlPlane = this.options.controlPlanes(offer.scope);
      const run =
        offer.kind === 'command' ? this.execute(controlPlane, offer, controller) : this.executeFrame(controlPlane, offer.id, controller);
      void run
        .catch((error: unknown) => this.options.logger.error({ err: error, [`${offer.kind}_id`]: offer.id }, `${offer.kind} run failed`))
        .finally(() => {
          this.inFlight.delete(controller);
          if (alone) this.runningAlone = false;
          this.pump();
        });
    }
  }

  /**
   * Sends the report on `reported` (a command or frame) of a run whose work
   * is done: its slot may go to the work the report leads to (see
   * `reserve`); else what waits in the queue gets it once the run has ended.
   */
  private async reportRun<T>(reported: string, send: () => Promise<T>): Promise<T> {
    this.handable.add(reported);
    try {
      return await send();
    } finally {
      this.handable.delete(reported);
    }
  }

  /** Claims a frame of the stage, interprets its rows, commits it; nothing claimable is fine (the offer was stale). */
  private async executeFrame(controlPlane: ControlPlane, stageId: string, controller: AbortController): Promise<void> {
    const { metrics } = this.options;
    const frame = await metrics
      .span('claim', () => controlPlane.claimFrame(stageId, this.claimRequest()))
      .catch((error: unknown) => {
        if (this.staleOffer(error)) return null;
        throw error;
      });
    if (frame) await this.runHeldFrame(controlPlane, frame, controller);
  }

  /** Interprets a frame this worker holds the lease of (claimed by it, or for it) and commits it; heartbeats meanwhile. */
  private async runHeldFrame(controlPlane: ControlPlane, frame: ClaimedFrame, controller: AbortController): Promise<void> {
    const { metrics } = this.options;
    const log = this.options.logger.child({ execution_id: frame.execution_id, step: frame.step, frame_id: frame.frame_id });
    const holder: Holder = { worker_id: this.workerId, lease_token: frame.lease_token };
    const beat = (): Promise<HeartbeatResult> => controlPlane.heartbeatFrame(frame.frame_id, { ...holder, lease_ms: frame.lease_ms });
    const attributes = {
      execution_id: frame.execution_id,
      step: frame.step,
      frame_id: frame.frame_id,
      frame_index: frame.frame_index,
      attempt: frame.attempt,
      worker_id: this.workerId,
    };
    await inSpan(
      'frame',
      frame.run_id ? stepRunContext(frame.execution_id, frame.run_id) : executionContext(frame.execution_id),
      attributes,
      async (span) => {
        const heartbeat = keepLease(beat, frame.lease_ms, controller, log);
        try {
          const run = interpreterFor(
            this.interpreters,
            controlPlane,
            {
              executionId: frame.execution_id,
              step: frame.step,
              scope: frame.scope,
              holder: { kind: 'frame', id: frame.frame_id },
              leaseToken: frame.lease_token,
              attempt: frame.attempt,
            },
            retryableLookup(async (name) => (await controlPlane.resolveFrameCredential(frame.frame_id, { ...holder, name })).data),
          );
          const report = await metrics.span('run', () => runClaimedFrame(frame, controller.signal, run));
          if (controller.signal.aborted) {
            span.set({ outcome: this.releasing ? 'released' : 'aborted' });
            if (this.releasing) await giveBack(() => controlPlane.releaseFrame(frame.frame_id, holder), log);
            return;
          }
          span.set({ outcome: report.status, rows: frame.rows.length });
          const send = (): Promise<void> =>
            report.status === 'COMMITTED'
              ? controlPlane.commitFrame(frame.frame_id, { ...holder, ...report.request })
              : controlPlane.failFrame(frame.frame_id, { ...holder, ...report.request });
          await metrics.span('report', () => this.reportRun(frame.frame_id, () => deliver(send, frame.lease_ms, log, 'frame report')));
        } finally {
          clearInterval(heartbeat);
        }
      },
    );
  }

  private async execute(controlPlane: ControlPlane, offer: Offer, controller: AbortController): Promise<void> {
    const { leaseMs, metrics } = this.options;
    let command: ClaimedCommand;
    try {
      command = await metrics.span('claim', () => controlPlane.claim(offer.id, { ...this.claimRequest(), lease_ms: leaseMs }));
    } catch (error) {
      if (this.staleOffer(error)) return;
      throw error;
    }
    await this.runHeld(controlPlane, command, offer, controller);
  }

  /** Runs a command this worker holds the lease of (claimed by it, or for it) and reports; heartbeats meanwhile. */
  private async runHeld(controlPlane: ControlPlane, command: ClaimedCommand, offer: Offer, controller: AbortController): Promise<void> {
    const { leaseMs, metrics } = this.options;
    const { id: commandId, alone = false } = offer;
    const log = this.options.logger.child({ execution_id: command.execution_id, step: command.step, command_id: commandId });
    const holder: Holder = { worker_id: this.workerId, lease_token: command.lease_token };
    if (command.spec['run_alone'] === true && !alone) {
      // Offered without saying so (an older message): give it back, and take it again when it can run alone.
      await giveBack(() => controlPlane.release(commandId, holder), log);
      this.offer({ ...offer, alone: true });
      return;
    }
    // A child of the step run's span: the offer's traceparent says which (over NATS), else every process derives it.
    const parent = offer.traceparent ? contextOf(offer.traceparent) : stepRunContext(command.execution_id, command.run_id);
    const attributes = {
      execution_id: command.execution_id,
      step: command.step,
      command_id: commandId,
      attempt: command.attempt,
      worker_id: this.workerId,
      tool_kind: command.kind,
    };
    await inSpan(`command ${command.kind}`, parent, attributes, async (span) => {
      let shared = false;
      const beat = (): Promise<HeartbeatResult> =>
        controlPlane.heartbeat(commandId, { ...holder, lease_ms: leaseMs, ...(shared ? { alone: false } : {}) });
      const heartbeat = keepLease(beat, leaseMs, controller, log);
      const aloneFor = alone
        ? setTimeout(() => {
            shared = true;
            // Recorded first: a death after this heartbeat is not this command's alone.
            void beat().then(
              () => {
                this.runningAlone = false;
                this.pump();
              },
              (error: unknown) => log.warn({ err: error }, 'could not say the command runs alone no more; it keeps its worker alone'),
            );
          }, ALONE_MS)
        : undefined;
      aloneFor?.unref();
      // What user code prints goes to the debug log, and its last lines into the report (`noetl logs`).
      const printed = new OutputTail();
      try {
        const run = interpreterFor(
          this.interpreters,
          controlPlane,
          {
            executionId: command.execution_id,
            step: command.step,
            scope: command.scope,
            holder: { kind: 'command', id: commandId },
            leaseToken: command.lease_token,
            attempt: command.attempt,
          },
          retryableLookup(async (name) => (await controlPlane.resolveCredential(commandId, { ...holder, name })).data),
          printed,
        );
        // A fan-out shard runs its body like a loop row: a playbook call there is a nested child the worker waits for.
        if (command.kind === 'playbook' && !command.shard) {
          await startChild(controlPlane, command, holder, run, controller.signal);
          span.set({ outcome: 'child_started' });
          return;
        }
        const report = await metrics.span('run', () =>
          command.shard ? runShard(command, command.shard, controller.signal, run) : runCommand(command, controller.signal, run),
        );
        if (controller.signal.aborted) {
          span.set({ outcome: this.releasing ? 'released' : 'aborted' });
          if (this.releasing) await giveBack(() => controlPlane.release(commandId, holder), log);
          return;
        }
        span.set({ outcome: report.status });
        metrics.stepDuration.observe({ kind: command.kind }, (report.request.duration_ms ?? 0) / 1000);
        const send = (): Promise<void> =>
          report.status === 'COMPLETED'
            ? controlPlane.complete(commandId, { ...holder, ...report.request, ...printed.report() })
            : controlPlane.fail(commandId, { ...holder, ...report.request, ...printed.report() });
        await metrics.span('report', () => this.reportRun(commandId, () => deliver(send, leaseMs, log, 'report')));
      } finally {
        clearInterval(heartbeat);
        clearTimeout(aloneFor);
      }
    });
  }

  /**
   * A refused claim: another worker took the work, it ended, or it is
   * unknown (the offer was stale), all fine. The API refusing this worker's
   * key is not: that is logged loudly, since nothing this worker is offered can run.
   */
  private staleOffer(error: unknown): boolean {
    if (!(error instanceof RuntimeError)) return false;
    if (error.code === 'unauthenticated' || error.code === 'forbidden') {
      this.options.logger.error(
        { code: error.code },
        `the API refused this worker's claim (check NOETL_API_KEY, a worker key of its tenant): ${error.message}`,
      );
    }
    return true;
  }

  private claimRequest(): ClaimRequest {
    const { kinds, pool } = this.options;
    return { worker_id: this.workerId, ...(kinds ? { tools: kinds } : {}), ...(pool ? { pool } : {}) };
  }
}

/** Reporting runs that may hand their slot on in a row while offers wait (see `Worker.reserve`): the queue's bound wait. */
const MAX_CONTINUATIONS = 32;

/** How long a command offered `alone` keeps its worker to itself before other work may start beside it. */
const ALONE_MS = 10_000;

/** `host-pid-random`: unique per process, readable in logs and in GET /api/workers. */
export function newWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
