import { parsePlaybook } from './parse-playbook';
import { parsePath, YamlSource } from './source-positions';

describe('source positions', () => {
  it('splits problem paths into keys and indexes', () => {
    expect(parsePath('workflow[2].next.arcs[0].step')).toEqual(['workflow', 2, 'next', 'arcs', 0, 'step']);
    expect(parsePath('workflow[0].set["ctx.a b"]')).toEqual(['workflow', 0, 'set', 'ctx.a b']);
    expect(parsePath('')).toEqual([]);
  });

  it('locates values, dotted keys and missing keys', () => {
    const text = 'a:\n  b: [x, {c: 1}]\n  set:\n    ctx.total: 5\n';
    const { source } = YamlSource.parse(text);
    expect(source?.locate('a.b[1].c')).toEqual({ line: 2, column: 14 });
    expect(source?.locate('a.b[1].c', 'key')).toEqual({ line: 2, column: 11 });
    expect(source?.locate('a.set.ctx.total')).toEqual({ line: 4, column: 16 });
    expect(source?.locate('a.set["ctx.total"]')).toEqual({ line: 4, column: 16 });
    expect(source?.locate('a.missing.deeper')).toEqual({ line: 1, column: 1 });
    expect(source?.locate('a.b[7]')).toEqual({ line: 2, column: 3 });
    expect(source?.locate('')).toEqual({ line: 1, column: 1 });
  });

  it('reports YAML syntax errors with their line, and nothing else', () => {
    const result = parsePlaybook('apiVersion: noetl.io/v2\nkind: Playbook\nmetadata:\n  name: t\n  name: u\nworkflow: [a\n');
    expect(result.playbook).toBeUndefined();
    expect(result.problems.map((p) => p.line)).toEqual([5, 7]);
    expect(result.problems.every((p) => p.message.startsWith('YAML syntax error: '))).toBe(true);
  });

  it('reports an unresolvable alias as a YAML error', () => {
    const result = parsePlaybook('a: &x [*x]\n');
    expect(result.problems.length).toBeGreaterThan(0);
  });
});
