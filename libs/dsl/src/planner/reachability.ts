import type { Playbook } from '../model';

/** For each step, the steps reachable from it through one or more arcs (itself only on a cycle). */
export type Reachability = ReadonlyMap<string, ReadonlySet<string>>;

const memo = new WeakMap<Playbook, Reachability>();

/** The transitive closure of the arc graph, computed once per playbook object. */
export function reachability(playbook: Playbook): Reachability {
  const known = memo.get(playbook);
  if (known) return known;
  const edges = new Map<string, string[]>();
  for (const step of playbook.steps) edges.set(step.name, [...new Set(step.next.arcs.map((arc) => arc.step))]);
  const closure = new Map<string, ReadonlySet<string>>();
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const stack = [...(edges.get(start) ?? [])];
    for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
      if (seen.has(step)) continue;
      seen.add(step);
      stack.push(...(edges.get(step) ?? []));
    }
    closure.set(start, seen);
  }
  memo.set(playbook, closure);
  return closure;
}

export function canReach(graph: Reachability, from: string, to: string): boolean {
  return graph.get(from)?.has(to) ?? false;
}
