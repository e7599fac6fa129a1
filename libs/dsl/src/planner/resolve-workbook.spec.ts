import { parsePlaybook } from '../parse';
import type { Playbook } from '../model';
import { StepFailure } from './plan-context';
import { resolveWorkbookTasks } from './resolve-workbook';

const YAML = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: wb, path: tests/wb}
workbook:
  - name: compute_flag
    tool:
      kind: python
      input: {temperature_c: null, unit: C}
      code: "result = {'is_hot': float(temperature_c) >= 25.0}"
workflow:
  - step: start
    tool:
      kind: workbook
      name: compute_flag
      input: {temperature_c: "{{ temperature_c }}"}
`;

function playbook(): Playbook {
  const { playbook, problems } = parsePlaybook(YAML);
  if (!playbook) throw new Error(JSON.stringify(problems));
  return playbook;
}

describe('resolveWorkbookTasks', () => {
  it('replaces a workbook call by its entry, keeping the call name and merging the input over the defaults', () => {
    const pb = playbook();
    const step = pb.steps[0]!;
    const [task] = resolveWorkbookTasks(pb, step.tool!, step.name).tasks;
    expect(task).toMatchObject({
      name: 'start',
      kind: 'python',
      input: { temperature_c: '{{ temperature_c }}', unit: 'C' },
    });
    expect(task?.config['code']).toContain('is_hot');
  });

  it('leaves a tool without workbook calls as it is', () => {
    const pb = playbook();
    const tool = { tasks: [{ name: 't', kind: 'noop' as const, config: {}, input: {}, policies: [], set: [] }], pipeline: false };
    expect(resolveWorkbookTasks(pb, tool, 'x')).toBe(tool);
  });

  it('fails the step for an entry the playbook does not have', () => {
    const pb = { ...playbook(), workbook: [] };
    const step = pb.steps[0]!;
    expect(() => resolveWorkbookTasks(pb, step.tool!, step.name)).toThrow(StepFailure);
  });
});
