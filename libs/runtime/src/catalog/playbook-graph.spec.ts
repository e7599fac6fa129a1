import { parsePlaybook } from '@noetl/dsl';
import { playbookGraph } from './playbook-graph';

const yaml = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: { name: graph, path: ui/graph }
workflow:
  - step: start
    tool: { kind: noop }
    next:
      - step: each
        when: "{{ workload.go }}"
      - step: end
  - step: each
    loop: { in: "{{ [1, 2] }}", iterator: n }
    tool: { kind: noop }
    next: [{ step: end }]
  - step: end
    tool: { kind: noop }
`;

describe('playbookGraph', () => {
  it('draws steps with their tools and loops, and every next arc with its condition', () => {
    const { playbook, problems } = parsePlaybook(yaml);
    expect(problems).toEqual([]);
    expect(playbookGraph(playbook!)).toEqual({
      entry: 'start',
      steps: [
        { step: 'start', tools: ['noop'], loop: false },
        { step: 'each', tools: ['noop'], loop: true },
        { step: 'end', tools: ['noop'], loop: false },
      ],
      arcs: [
        { from: 'start', to: 'each', when: '{{ workload.go }}' },
        { from: 'start', to: 'end' },
        { from: 'each', to: 'end' },
      ],
    });
  });
});
