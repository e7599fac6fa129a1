import { formatProblem } from './format-problem';

describe('formatProblem', () => {
  it('prints file:line:column path message', () => {
    expect(
      formatProblem('p.yaml', { path: 'workflow[2].next.arcs[0].step', line: 14, column: 18, message: 'unknown step "nowhere"' }),
    ).toBe('p.yaml:14:18 workflow[2].next.arcs[0].step unknown step "nowhere"');
  });

  it('leaves out what it does not know', () => {
    expect(formatProblem('p.yaml', { path: '', line: 3, message: 'YAML syntax error: x' })).toBe('p.yaml:3 YAML syntax error: x');
    expect(formatProblem('p.yaml', { path: 'kind', message: 'bad' })).toBe('p.yaml kind bad');
  });
});
