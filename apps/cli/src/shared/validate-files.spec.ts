import { join, resolve } from 'node:path';
import { validateFiles } from './validate-files';

const playbooks = resolve(__dirname, '../../../../../shared/noetl-fixtures/playbooks');

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

  it('reports a file it cannot read', () => {
    const lines: string[] = [];
    expect(validateFiles(['/nonexistent/playbook.yaml'], (line) => lines.push(line))).toBe(1);
    expect(lines).toEqual(['/nonexistent/playbook.yaml: cannot read: ENOENT']);
  });
});
