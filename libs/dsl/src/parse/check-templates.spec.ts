import { parsePlaybook } from './parse-playbook';
import { HEADER, playbookText, problemsOf } from './testing/playbook-text';

describe('template syntax', () => {
  it('accepts well-formed templates everywhere, blocks included', () => {
    const text = playbookText(`
      - step: s
        tool:
          kind: postgres
          auth: "{{ pg_auth }}"
          command: |
            {% if x %}SELECT {{ x | int }}{% endif %};
        set: {ctx.n: "{{ (ctx.n | int) + 1 }}"}`);
    expect(parsePlaybook(text).problems).toEqual([]);
  });

  it('reports a malformed template in a quoted value at its line', () => {
    const problems = problemsOf(playbookText('- step: s\n  tool: {kind: http, url: "{{ api_url }/x"}'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'workflow[0].tool.url', line: 7, column: 39 });
    expect(problems[0]?.message).toMatch(/^malformed template: /);
  });

  it('reports a malformed template inside a block scalar at the line of the error', () => {
    const text = [
      HEADER, //                          1-5
      '- step: s', //                      6
      '  tool:', //                        7
      '    kind: python', //               8
      '    code: |', //                    9
      '      a = 1', //                   10
      '      b = {{ x + }}', //           11
      '      result = a', //              12
    ].join('\n');
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'workflow[0].tool.code', line: 11, column: 18 });
  });

  it('points at the first content line of a block when the engine gives no line', () => {
    const text = playbookText('- step: s\n  tool:\n    kind: python\n    code: |\n      x = 1 {{ foo(');
    expect(problemsOf(text)).toEqual([expect.objectContaining({ path: 'workflow[0].tool.code', line: 10, column: 7 })]);
  });

  it('keeps an error of a quoted value within the lines the value spans', () => {
    const text = playbookText(
      '- step: s\n  tool: {kind: http, url: "x\\n{{ a + }}"}\n- step: t\n  set:\n    ctx.a: "one\n\n      {{ b + }}"',
    );
    const lines = problemsOf(text).map((p) => [p.path, p.line]);
    expect(lines[0]).toEqual(['workflow[0].tool.url', 7]); // an escaped \n adds no source line
    expect(lines[1]?.[0]).toBe('workflow[1].set.ctx.a');
    expect(lines[1]?.[1]).toBeGreaterThanOrEqual(10);
    expect(lines[1]?.[1]).toBeLessThanOrEqual(12);
  });

  it('reports malformed templates together with structural problems', () => {
    const text = playbookText('- step: s\n  tool: {kind: http}\n  set: {ctx.a: "{% if %}"}\n  next: nowhere');
    expect(problemsOf(text).map((p) => [p.path, p.line])).toEqual([
      ['workflow[0].tool', 7],
      ['workflow[0].set.ctx.a', 8],
      ['workflow[0].next', 9],
    ]);
  });

  it('ignores strings without template markers', () => {
    expect(parsePlaybook(playbookText('- step: s\n  tool: {kind: python, code: "x = {1: 2}; result = x"}')).problems).toEqual([]);
  });
});
