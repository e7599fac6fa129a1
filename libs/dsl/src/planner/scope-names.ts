import { namesReadBy } from '../expressions/template-names';
import type { JsonObject, Playbook, Step } from '../model';
import { workToolKinds } from './work-tool-kinds';

/**
 * The scope names a command's or frame's spec can read, for `buildScope`'s
 * `only`: every name its templates spell (tool configuration, input,
 * policies, sinks, keychain). Undefined, meaning all of them, when its work
 * runs python, whose code sees the whole scope as `context`.
 */
export function scopeNamesOf(spec: JsonObject): ReadonlySet<string> | undefined {
  if (workToolKinds(spec).includes('python')) return undefined;
  return namesReadBy(spec);
}

const byStep = new WeakMap<Step, ReadonlySet<string>>();
const byPlaybook = new WeakMap<Playbook, ReadonlySet<string>>();

/** The names a step's own templates spell (its `set`, arcs, loop, retry, tool): what the scheduler renders for it reads no others. */
export function stepScopeNames(step: Step): ReadonlySet<string> {
  let names = byStep.get(step);
  if (!names) byStep.set(step, (names = namesReadBy(step)));
  return names;
}

/** The names any template of the playbook spells: no render for one of its executions reads another. */
export function playbookScopeNames(playbook: Playbook): ReadonlySet<string> {
  let names = byPlaybook.get(playbook);
  if (!names) byPlaybook.set(playbook, (names = namesReadBy(playbook)));
  return names;
}
