import { playbookText, problemsOf, stepsOf } from './testing/playbook-text';

const messages = (steps: string, extra = ''): string[] => problemsOf(playbookText(steps, extra)).map((p) => `${p.path}: ${p.message}`);

describe('the wait tool at registration', () => {
  it('accepts a signal name with an optional timeout and condition', () => {
    const [step] = stepsOf(`
      - step: approve
        tool: { kind: wait, signal: "order.approval:v1", timeout: 3600, when: "{{ signal.ok }}" }
    `);
    expect(step?.tool?.tasks[0]).toMatchObject({
      kind: 'wait',
      config: { signal: 'order.approval:v1', timeout: 3600, when: '{{ signal.ok }}' },
    });
  });

  it.each([
    ['tool: { kind: wait }', 'workflow[0].tool: wait tool needs "signal" (the name of the signal to wait for)'],
    [
      'tool: { kind: wait, signal: "approval-{{ id }}" }',
      'workflow[0].tool.signal: "signal" must be a signal name: letters, digits, "_", "-", ".", ":" (no template)',
    ],
    [
      'tool: { kind: wait, signal: go, timeout: -1 }',
      'workflow[0].tool.timeout: "timeout" must be a non-negative number of seconds or a template',
    ],
    ['tool: { kind: wait, signal: go, when: 3 }', 'workflow[0].tool.when: "when" must be a condition template or a boolean'],
  ])('rejects %s', (tool, problem) => {
    expect(messages(`- step: approve\n  ${tool}`)).toEqual([problem]);
  });

  it('rejects a wait inside a pipeline, a loop body or a workbook entry', () => {
    const reason = 'a "wait" must be the whole tool of a step: it parks the step, so no pipeline task, workbook entry or sink can wait';
    expect(messages('- step: a\n  tool:\n    - { name: w, kind: wait, signal: go }')).toEqual([`workflow[0].tool[0].kind: ${reason}`]);
    expect(messages('- step: a\n  loop: { in: "{{ [1, 2] }}", iterator: i }\n  tool: { kind: wait, signal: go }')).toEqual([
      'workflow[0].loop: a loop body cannot "wait": a signal parks a whole step, not one iteration',
    ]);
    expect(
      messages('- step: a\n  tool: { kind: workbook, name: w }', 'workbook:\n  - name: w\n    tool: { kind: wait, signal: go }'),
    ).toEqual([`workbook[0].tool.kind: ${reason}`]);
  });
});
