import type { JsonObject } from '@noetl/event-kernel';
import { isJsonObject, toPlainJson, withResultViews, type ExpressionEngine, type Task, type ToolSpec } from '@noetl/dsl';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { QueueGroups, Subjects, type Bus, type Unsubscribe } from '../bus/bus';
import type { ClaimedCommand, ControlPlane } from '../control-plane/control-plane';
import type { RuntimeMetrics } from '../metrics';
import { RuntimeError } from '../runtime-error';
import { runCommand } from './command-runner';

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
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly inFlight = new Map<string, AbortController>();
  private unsubscribe?: Unsubscribe;
  private stopping = false;

  constructor(private readonly options: WorkerOptions) {}

  start(): void {
    this.unsubscribe = this.options.bus.subscribe(
      Subjects.work(this.options.tenantId),
      (message) => {
        if (typeof message['command_id'] === 'string') this.offer(message['command_id']);
      },
      { queue: QueueGroups.workers },
    );
  }

  /** Aborts running calls (their commands' leases run out and the reaper re-issues them) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.queue.length = 0;
    this.queued.clear();
    for (const controller of this.inFlight.values()) controller.abort();
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  offer(commandId: string): void {
    if (this.stopping || this.queued.has(commandId) || this.inFlight.has(commandId)) return;
    this.queued.add(commandId);
    this.queue.push(commandId);
    this.pump();
  }

  private pump(): void {
    while (!this.stopping && this.inFlight.size < this.options.concurrency && this.queue.length > 0) {
      const commandId = this.queue.shift()!;
      this.queued.delete(commandId);
      const controller = new AbortController();
      this.inFlight.set(commandId, controller);
      void this.execute(commandId, controller)
        .catch((error: unknown) => this.options.logger.error({ err: error, command_id: commandId }, 'command run failed'))
        .finally(() => {
          this.inFlight.delete(commandId);
          this.pump();
        });
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
    const heartbeat = this.keepLease(command, controller, log);
    try {
      if (command.kind === 'playbook') {
        await this.startChild(command);
        return;
      }
      const report = await runCommand(command, controller.signal, {
        tools: this.options.tools,
        engine: this.options.engine,
        pythonEnabled: this.options.pythonEnabled,
        resolveCredential: async (name) => (await controlPlane.resolveCredential(commandId, { worker_id: this.workerId, name })).data,
        onOutput: (stream, text) => log.debug({ stream }, text),
      });
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
  private async startChild(command: ClaimedCommand): Promise<void> {
    const task = ((command.spec['tool'] as unknown as ToolSpec | undefined)?.tasks ?? [])[0] as Task | undefined;
    const scope = withResultViews(command.scope, command.result_views ?? {});
    const config = toPlainJson(this.options.engine.renderValue(task?.config ?? {}, scope));
    const input = toPlainJson(
      this.options.engine.renderValue({ ...(isJsonObject(command.spec['input']) ? command.spec['input'] : {}), ...(task?.input ?? {}) }, scope),
    );
    const settings = isJsonObject(config) ? config : {};
    const path = settings['path'];
    if (typeof path !== 'string' || path === '') {
      await this.options.controlPlane.fail(command.command_id, {
        worker_id: this.workerId,
        error: { kind: 'internal', message: `playbook step ${command.step} needs a "path"`, retryable: false, step: command.step },
      });
      return;
    }
    await this.options.controlPlane.startChild(command.command_id, {
      worker_id: this.workerId,
      path,
      ...(typeof settings['version'] === 'number' ? { version: settings['version'] } : {}),
      payload: (isJsonObject(input) ? input : {}) as JsonObject,
    });
  }

  private keepLease(command: ClaimedCommand, controller: AbortController, log: Logger): NodeJS.Timeout {
    const { controlPlane, leaseMs } = this.options;
    const timer = setInterval(() => {
      controlPlane
        .heartbeat(command.command_id, { worker_id: this.workerId, lease_ms: leaseMs })
        .then((result) => {
          if (result.cancelled) {
            log.info('command cancelled; aborting');
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
