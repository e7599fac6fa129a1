import { canReach, reachability } from './reachability';
import { workflow } from './testing/planner-harness';

describe('reachability', () => {
  const playbook = workflow(`
  - step: a
    next: [b]
  - step: b
    next: [{ step: c }, { step: a, when: false }]
  - step: c
  - step: d
    next: [c]
`);

  it('is the transitive closure of the arcs, self included only on a cycle', () => {
    const graph = reachability(playbook);
    expect([...graph.get('a')!].sort()).toEqual(['a', 'b', 'c']);
    expect([...graph.get('c')!]).toEqual([]);
    expect(canReach(graph, 'd', 'c')).toBe(true);
    expect(canReach(graph, 'c', 'd')).toBe(false);
    expect(canReach(graph, 'a', 'a')).toBe(true);
    expect(canReach(graph, 'd', 'd')).toBe(false);
    expect(canReach(graph, 'nope', 'a')).toBe(false);
  });

  it('is computed once per playbook object', () => {
    expect(reachability(playbook)).toBe(reachability(playbook));
  });
});
