import { isMap, isScalar, isSeq } from 'yaml';
import { nameUses, templateNames } from '../expressions/template-names';
import type { Playbook, Problem } from '../model';
import { parsePlaybook } from './parse-playbook';
import { ProblemCollector } from './problem-collector';
import { indexPath, isRawMap, keyPath } from './raw-shape';
import { YamlSource } from './source-positions';

/**
 * Names the runtime lays into a render scope whatever the playbook says
 * (docs/language.md, Templates): the execution's identifiers and inputs, and
 * the names of the moment (a call's outcome, a loop's iteration, a retry's
 * page, the event being routed, a chunk, a signal, the pipeline's state).
 */
const RUNTIME_NAMES: ReadonlySet<string> = new Set([
  'workload',
  'ctx',
  'vars',
  'execution_id',
  'parent_execution_id',
  'catalog_id',
  'job',
  'input',
  'iter',
  'loop',
  'frame',
  '__frame_max_rows',
  'output',
  'result',
  'response',
  'page',
  'error',
  'data',
  '_retry',
  'pages',
  '_prev',
  'results',
  '_attempt',
  'event',
  'fanin',
  'chunk',
  'signal',
  'keychain',
  'step',
]);

/** What `undefinedTemplateNames` finds: reads that fail when rendered, and reads that render as nothing. */
export interface UndefinedNames {
  /** A member of the name is read (`{{ nothing.here }}`): the render fails, and the step with it. */
  errors: Problem[];
  /** The name itself is read (`{{ nothing }}`): it renders as nothing, which is seldom meant. */
  warnings: Problem[];
}

/**
 * Template names that nothing defines: not a runtime name, a workload key, a
 * step or pipeline task, a loop iterator, a `set` key (`ctx.x` is also `x`),
 * a pagination `into` name, nor bound by the template itself. Such a name is
 * undefined when the template renders, unless the execution's payload brings
 * it (declare it in `workload`). Checked by `noetl validate`, not at
 * registration, which refuses only what cannot run. Nothing is reported for a
 * playbook with other problems.
 */
export function undefinedTemplateNames(yamlText: string): UndefinedNames {
  const { playbook } = parsePlaybook(yamlText);
  const { source } = YamlSource.parse(yamlText);
  if (!playbook || !source) return { errors: [], warnings: [] };
  const defined = definedNames(playbook);
  const errors = new ProblemCollector(source);
  const warnings = new ProblemCollector(source);
  const visit = (node: unknown, path: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) visit(pair.value, keyPath(path, isScalar(pair.key) ? String(pair.key.value) : String(pair.key)));
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, indexPath(path, index)));
    } else if (isScalar(node) && typeof node.value === 'string') {
      const uses = nameUses(node.value);
      for (const name of templateNames(node.value)) {
        if (defined.has(name) || uses.own.has(name)) continue;
        const why = `no step, workload key, set, loop or keychain defines "${name}" (declare it in "workload" if the execution's payload brings it)`;
        if (uses.dereferenced.has(name))
          errors.add(path, `template reads a member of "${name}", which fails the step when it renders: ${why}`);
        else warnings.add(path, `warning: template reads "${name}", which renders as nothing: ${why}`);
      }
    }
  };
  visit(source.root, '');
  return { errors: errors.list(), warnings: warnings.list() };
}

function definedNames(playbook: Playbook): Set<string> {
  const names = new Set([...RUNTIME_NAMES, ...Object.keys(playbook.workload)]);
  for (const step of playbook.steps) {
    names.add(step.name);
    if (step.loop) names.add(step.loop.iterator);
  }
  collectWrites(playbook, names);
  return names;
}

/**
 * Set writes (`ctx` and pipeline-local keys become bare names), task names
 * (a pipeline's finished tasks are bare names) and pagination `into` names,
 * wherever the model holds them: steps, arcs, tasks, policies, workbook.
 */
function collectWrites(value: unknown, names: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectWrites(item, names);
    return;
  }
  if (!isRawMap(value)) return;
  const { scope, key, kind, name, into } = value;
  if ((scope === 'ctx' || scope === 'local') && typeof key === 'string') names.add(key.split('.')[0] ?? key);
  if (typeof kind === 'string' && typeof name === 'string') names.add(name);
  if (typeof into === 'string') names.add(into);
  for (const child of Object.values(value)) collectWrites(child, names);
}
