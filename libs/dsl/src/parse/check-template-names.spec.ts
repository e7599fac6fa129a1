import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { undefinedTemplateNames } from './check-template-names';

const playbook = (workflow: string, extra = ''): string => `apiVersion: noetl.io/v2
kind: Playbook
metadata: { name: names }
workload:
  api: http://localhost
${extra}workflow:
${workflow}`;

describe('undefinedTemplateNames', () => {
  it('reports a member read of a name nothing defines as an error, at its line and column', () => {
    const text = playbook(`  - step: start
    tool: { kind: noop, input: { id: "{{ usr.id }}" } }
`);
    expect(undefinedTemplateNames(text)).toEqual({
      errors: [
        {
          path: 'workflow[0].tool.input.id',
          line: 8,
          column: 38,
          message: expect.stringMatching(/^template reads a member of "usr", which fails the step when it renders: no step, workload key/),
        },
      ],
      warnings: [],
    });
  });

  it('reports a bare read of an undefined name as a warning', () => {
    const { errors, warnings } = undefinedTemplateNames(
      playbook(`  - step: start
    tool: { kind: noop, input: { n: "{{ count }}" } }
`),
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      expect.objectContaining({
        path: 'workflow[0].tool.input.n',
        line: 8,
        message: expect.stringMatching(/^warning: template reads "count", which renders as nothing/),
      }),
    ]);
  });

  it('accepts what the playbook, the runtime or the template itself defines', () => {
    const text = playbook(
      `  - step: start
    set: { ctx.page: 1, total: 0 }
    next: [{ step: each, set: { ctx.cursor: "{{ start.x }}" } }]
  - step: each
    loop: { in: "{{ [1, 2] }}", iterator: item }
    tool:
      - name: fetch
        kind: http
        url: "{{ api }}/{{ item }}?p={{ page }}&c={{ cursor }}&t={{ total }}&k={{ keychain.token.value }}"
        retry: []
      - name: use
        kind: noop
        input:
          a: "{{ fetch.data }}"
          b: "{% for x in _prev.data %}{{ x.id }}{% endfor %}{% set y = 1 %}{{ y }}"
          c: "{{ execution_id }} {{ iter.item }} {{ output.status }} {{ error.kind if error is defined }}"
`,
      'keychain:\n  - { name: token, kind: static, map: { value: v } }\n',
    );
    expect(undefinedTemplateNames(text)).toEqual({ errors: [], warnings: [] });
  });

  it('reports nothing for a playbook the parser refuses (its problems come first)', () => {
    expect(
      undefinedTemplateNames(playbook('  - step: start\n    next: nowhere\n    tool: { kind: noop, input: { a: "{{ x.y }}" } }\n')),
    ).toEqual({ errors: [], warnings: [] });
  });

  it('finds no error in any example or NoETL fixture, and no warning in the examples', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : /\.ya?ml$/.test(name) ? [path] : [];
      });
    const found = (file: string, kind: 'errors' | 'warnings'): string[] =>
      undefinedTemplateNames(readFileSync(file, 'utf8'))[kind].map((p) => `${relative(root, file)}:${p.line} ${p.message}`);
    const examples = files(join(root, 'examples'));
    const fixtures = files(join(root, 'test', 'fixtures', 'noetl', 'playbooks'));
    expect([...examples, ...fixtures].flatMap((file) => found(file, 'errors'))).toEqual([]);
    expect(examples.flatMap((file) => found(file, 'warnings'))).toEqual([]);
  });
});
