import type { Playbook, Task, ToolSpec } from '../model';
import { StepFailure } from './plan-context';

/**
 * A `workbook` task calls the playbook's workbook entry of that `name`
 * (DSL.md s3): the command carries the entry's task itself, so a worker
 * needs nothing but the command. The call's input is merged over the
 * entry's defaults; its policies come first (first match wins) and the
 * entry's `set` runs before the call's. The task keeps the caller's name.
 */
export function resolveWorkbookTasks(playbook: Playbook, tool: ToolSpec, stepName: string): ToolSpec {
  if (!tool.tasks.some((task) => task.kind === 'workbook')) return tool;
  return { ...tool, tasks: tool.tasks.map((task) => (task.kind === 'workbook' ? workbookCall(playbook, task, stepName) : task)) };
}

function workbookCall(playbook: Playbook, call: Task, stepName: string): Task {
  const name = call.config['name'];
  const entry = playbook.workbook.find((candidate) => candidate.name === name);
  if (!entry) {
    // The parser rejects unknown names; a stored playbook from an older parser could still reach here.
    throw new StepFailure({
      kind: 'internal',
      message: `step ${stepName} calls unknown workbook entry ${JSON.stringify(name)}`,
      step: stepName,
    });
  }
  return {
    name: call.name,
    kind: entry.task.kind,
    config: entry.task.config,
    input: { ...entry.task.input, ...call.input },
    policies: [...call.policies, ...entry.task.policies],
    set: [...entry.task.set, ...call.set],
  };
}
