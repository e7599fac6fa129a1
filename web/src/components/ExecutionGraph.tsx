import dagre from '@dagrejs/dagre';
import { Background, Controls, type Edge, type Node, ReactFlow } from '@xyflow/react';
import { useMemo } from 'react';
import type { Schemas } from '../api/client';
import { useTheme } from '../theme';

export interface StepProgress {
  status?: string;
  /** Loop steps: frames or iterations done and the total, when known. */
  loop?: { done: number; total: number | null };
}

const NODE = { width: 180, height: 56 };

/** Top-to-bottom positions from dagre: the graph's layout is the library's, not ours. */
function layout(graph: Schemas['PlaybookGraphDto']): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 50 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of graph.steps) g.setNode(s.step, { ...NODE });
  for (const a of graph.arcs) g.setEdge(a.from, a.to);
  dagre.layout(g);
  return new Map(graph.steps.map((s) => [s.step, { x: g.node(s.step).x - NODE.width / 2, y: g.node(s.step).y - NODE.height / 2 }]));
}

/** The playbook: steps as nodes coloured by their status at the chosen event, next arcs as edges. */
export function ExecutionGraph({ graph, progress }: { graph: Schemas['PlaybookGraphDto']; progress: Record<string, StepProgress> }) {
  const positions = useMemo(() => layout(graph), [graph]);
  const theme = useTheme();
  const nodes: Node[] = graph.steps.map((s) => {
    const p = progress[s.step];
    const loop = p?.loop ? ` ${p.loop.done}/${p.loop.total ?? '?'}` : s.loop ? ' 0/?' : '';
    return {
      id: s.step,
      position: positions.get(s.step)!,
      data: { label: `${s.step}${loop}` },
      className: `step status-${p?.status ?? 'PENDING'}`,
      ariaLabel: `step ${s.step}: ${p?.status ?? 'not started'}${loop ? `, frames${loop}` : ''}`,
      style: { width: NODE.width },
    };
  });
  const edges: Edge[] = graph.arcs.map((a, i) => ({
    id: `${a.from}-${a.to}-${i}`,
    source: a.from,
    target: a.to,
    ...(a.when ? { label: a.when } : {}),
  }));
  return (
    <div className="graph" role="figure" aria-label="Playbook graph">
      <ReactFlow
        colorMode={theme}
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        nodesDraggable={false}
        nodesConnectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
