import type { Step, Task } from '../model';
import { isTemplate } from '../expressions';
import type { ParseContext } from './parse-context';
import { indexPath, isRawMap, keyPath } from './raw-shape';

/** A compiled task with the raw mapping and path it came from. */
export interface CompiledTask {
  task: Task;
  raw: unknown;
  path: string;
}

/** `to:` values that name a position rather than a task. */
const RELATIVE_JUMPS = new Set(['previous', 'prev']);

/** `do: jump` must name a task of the same pipeline (DSL.md s5.2). */
export function checkJumpTargets(tasks: readonly CompiledTask[], ctx: ParseContext): void {
  const names = new Set(tasks.map((t) => t.task.name));
  for (const { task, raw, path } of tasks) {
    for (const policy of task.policies) {
      const action = policy.action;
      if (action.do !== 'jump' || names.has(action.to) || RELATIVE_JUMPS.has(action.to) || isTemplate(action.to)) continue;
      ctx.problems.add(jumpPath(raw, path, action.to), `jump target "${action.to}" is not a task of this pipeline`);
    }
  }
}

/** The path of the rule's `to:` that names `target`, else the policy itself. */
function jumpPath(raw: unknown, path: string, target: string): string {
  const policyPath = keyPath(path, 'spec.policy');
  const rules = isRawMap(raw) && isRawMap(raw.spec) && isRawMap(raw.spec.policy) ? raw.spec.policy.rules : undefined;
  if (!Array.isArray(rules)) return policyPath;
  for (const [index, rule] of rules.entries()) {
    if (!isRawMap(rule)) continue;
    const rulePath = indexPath(keyPath(policyPath, 'rules'), index);
    const elseBranch = isRawMap(rule.else) ? rule.else : undefined;
    const candidates: Array<[unknown, string]> = [
      [rule.then, 'then'],
      [elseBranch?.then, 'else.then'],
      [elseBranch, 'else'],
    ];
    for (const [branch, branchPath] of candidates) {
      if (isRawMap(branch) && branch.to === target) return keyPath(rulePath, `${branchPath}.to`);
    }
  }
  return policyPath;
}

/** Step names: unique, with the line of the first use in the duplicate's message. */
export function checkUniqueStepNames(steps: ReadonlyArray<{ step: Step; path: string }>, ctx: ParseContext): void {
  const firstLine = new Map<string, number>();
  for (const { step, path } of steps) {
    const namePath = keyPath(path, 'step');
    const first = firstLine.get(step.name);
    if (first !== undefined) ctx.problems.add(namePath, `duplicate step name "${step.name}" (first at line ${first})`);
    else firstLine.set(step.name, ctx.problems.lineOf(namePath));
  }
}

/** `next` targets and `kind: workbook` names must exist. */
export function checkReferences(stepNames: ReadonlySet<string>, workbookNames: ReadonlySet<string>, ctx: ParseContext): void {
  for (const ref of ctx.stepRefs) {
    if (!stepNames.has(ref.name)) ctx.problems.add(ref.path, `unknown step "${ref.name}"`);
  }
  for (const ref of ctx.workbookRefs) {
    if (!workbookNames.has(ref.name) && !isTemplate(ref.name)) ctx.problems.add(ref.path, `unknown workbook entry "${ref.name}"`);
  }
}
