import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { validateFiles } from './validate-files';

const playbooks = resolve(__dirname, '../../../../test/fixtures/noetl/playbooks');

describe('validateFiles (noetl validate)', () => {
  it('prints nothing and counts no problem for valid playbooks', () => {
    const lines: string[] = [];
    const files = [join(playbooks, 'hello_world/hello_world.yaml'), join(playbooks, 'broken_sql.yaml')];
    expect(validateFiles(files, (line) => lines.push(line))).toBe(0);
    expect(lines).toEqual([]);
  });

  it('prints each problem as file:line:column path message', () => {
    const lines: string[] = [];
    const file = join(playbooks, 'broken_playbooks/should_error_tool_is_required.yaml');
    expect(validateFiles([file], (line) => lines.push(line))).toBeGreaterThan(0);
    expect(lines).toContain(`${file}:26:5 workflow[1].tool postgres tool needs SQL in "query", "command" or "commands"`);
    for (const line of lines) expect(line).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+ \\S+ .+`));
  });

  it('counts a member read of an undefined template name as a problem, and prints a bare one as a warning only', () => {
    const lines: string[] = [];
    const file = join(playbooks, 'loop_test.yaml');
    expect(validateFiles([file], (line) => lines.push(line))).toBe(0);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:41:\\d+ workflow\\[0\\]\\.input\\.loop_index warning: template reads "loop_index"`,
        ),
      ),
    );
  });

  it('fails a playbook whose template reads a member of a name nothing defines', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'noetl-validate-')), 'typo.yaml');
    writeFileSync(
      file,
      'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: { name: typo }\nworkflow:\n  - step: start\n    tool: { kind: noop, input: { id: "{{ strat.id }}" } }\n',
    );
    const lines: string[] = [];
    expect(validateFiles([file], (line) => lines.push(line))).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${file}:6:\\d+ workflow\\[0\\]\\.tool\\.input\\.id template reads a member of "strat"`)),
    ]);
  });

  it('reports a file it cannot read', () => {
    const lines: string[] = [];
    expect(validateFiles(['/nonexistent/playbook.yaml'], (line) => lines.push(line))).toBe(1);
    expect(lines).toEqual(['/nonexistent/playbook.yaml: cannot read: ENOENT']);
  });
});
