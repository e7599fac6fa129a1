import type { Playbook } from '@noetl/dsl';

/** A step as the execution explorer draws it: its name, its tool kinds and whether it loops. */
export interface GraphStep {
  step: string;
  tools: string[];
  loop: boolean;
}

/** A `next` arc: from one step to another, with its condition when it has one. */
export interface GraphArc {
  from: string;
  to: string;
  when?: string;
}

/** The playbook as a graph: steps as nodes, `next` arcs as edges, and where it starts. */
export interface PlaybookGraph {
  entry: string;
  steps: GraphStep[];
  arcs: GraphArc[];
}

export function playbookGraph(playbook: Playbook): PlaybookGraph {
  return {
    entry: playbook.executor.entryStep,
    steps: playbook.steps.map((step) => ({
      step: step.name,
      tools: step.tool?.tasks.map((task) => task.kind) ?? [],
      loop: step.loop !== undefined,
    })),
    arcs: playbook.steps.flatMap((step) =>
      step.next.arcs.map((arc) => ({
        from: step.name,
        to: arc.step,
        ...(arc.when !== undefined && arc.when !== true ? { when: String(arc.when) } : {}),
      })),
    ),
  };
}
