import type { JsonObject } from '@noetl/event-kernel';
import type { Database, ExecutionRepository } from '@noetl/storage';
import type { LocalControlPlane } from '../control-plane/local-control-plane';
import { childOutcome, type ChildEnd } from '../executions/child-outcome';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';

const SWEEP_LIMIT = 100;

export interface ChildLinksDeps {
  db: Database;
  ledger: Ledger;
  executions: ExecutionService;
  controlPlane: LocalControlPlane;
  executionRows: ExecutionRepository;
}

/**
 * Parent and child executions (DSL.md s3 `playbook`): a child's end
 * completes or fails its parent's command; a cancelled command or an ended
 * parent cancels its running children. Everything is idempotent, so the
 * sweep can settle what a crash left half done.
 */
export class ChildLinks {
  constructor(private readonly deps: ChildLinksDeps) {}

  /** Children that ended while their parent command is still open; running children of ended parents. */
  async settle(): Promise<void> {
    const { db, ledger, executionRows } = this.deps;
    for (const childId of await executionRows.endedChildrenOfRunningCommands(db, ledger.scope, SWEEP_LIMIT))
      await this.reportToParent(childId);
    for (const childId of await executionRows.runningChildrenOfEndedParents(db, ledger.scope, SWEEP_LIMIT)) {
      await this.cancelChild(childId, 'the parent execution ended');
    }
  }

  /** The child's end completes or fails the parent's `playbook` command (DSL s3: the parent waits, durably). */
  async reportToParent(childId: string): Promise<void> {
    const end = await this.childEnd(childId);
    if (!end) return;
    await this.deps.controlPlane.finish(end.parentCommandId, null, childOutcome(end)).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'already_terminal') throw error;
    });
  }

  private async childEnd(childId: string): Promise<ChildEnd | undefined> {
    const parent = await this.deps.executionRows.parentCommandOf(this.deps.db, childId);
    if (!parent) return undefined;
    const detail = await this.deps.executions.get(childId);
    if (detail.status === 'RUNNING') return undefined;
    const returnStep = returnStepOf(parent.spec);
    return {
      parentCommandId: parent.commandId,
      detail,
      ...(returnStep !== undefined ? { returnStep, stepResult: await this.deps.executions.stepResult(childId, returnStep) } : {}),
    };
  }

  async cancelChildOf(commandId: string): Promise<void> {
    for (const childId of await this.deps.executionRows.runningChildrenOfCommand(this.deps.db, commandId)) {
      await this.cancelChild(childId, 'the parent command was cancelled');
    }
  }

  private async cancelChild(childId: string, reason: string): Promise<void> {
    await this.deps.executions.cancel(childId, { reason, by: 'scheduler' }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'already_terminal') throw error;
    });
  }
}

/** `return_step` of the command's single `playbook` task, as written (a literal step name). */
function returnStepOf(spec: JsonObject | null): string | undefined {
  const tool = spec?.['tool'];
  const tasks = typeof tool === 'object' && tool !== null && !Array.isArray(tool) ? tool['tasks'] : undefined;
  const first = Array.isArray(tasks) ? tasks[0] : undefined;
  const config = typeof first === 'object' && first !== null && !Array.isArray(first) ? first['config'] : undefined;
  const step = typeof config === 'object' && config !== null && !Array.isArray(config) ? config['return_step'] : undefined;
  return typeof step === 'string' ? step : undefined;
}
