import * as fs from 'fs';
import * as path from 'path';
import { formatProblem } from './format-problem';
import { parsePlaybook } from './parse-playbook';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/noetl/playbooks');
const NEGATIVE = 'broken_playbooks/should_error_tool_is_required.yaml';

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return yamlFiles(full);
      return /\.ya?ml$/.test(entry.name) ? [full] : [];
    })
    .sort();
}

const files = yamlFiles(FIXTURES).map((file) => path.relative(FIXTURES, file));
const positives = files.filter((file) => file !== NEGATIVE);

describe('NoETL fixture corpus', () => {
  it('holds the 61 playbooks, the negative one included', () => {
    expect(files).toHaveLength(61);
    expect(files).toContain(NEGATIVE);
    expect(files).toContain('broken_sql.yaml');
  });

  it.each(positives)('accepts %s unchanged', (file) => {
    const result = parsePlaybook(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
    const report = result.problems.map((p) => formatProblem(file, p)).join('\n');
    expect(report).toBe('');
    expect(result.playbook?.steps.length).toBeGreaterThan(0);
  });

  it('rejects the step whose SQL sits outside its postgres tool', () => {
    const result = parsePlaybook(fs.readFileSync(path.join(FIXTURES, NEGATIVE), 'utf8'));
    expect(result.playbook).toBeUndefined();
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'workflow[1].tool',
          line: 26,
          message: 'postgres tool needs SQL in "query", "command" or "commands"',
        }),
        expect.objectContaining({ path: 'workflow[1].command', line: 29, message: expect.stringContaining('unknown key "command"') }),
      ]),
    );
  });

  it('keeps the catalog path as written, leading slash included', () => {
    const result = parsePlaybook(fs.readFileSync(path.join(FIXTURES, 'vars_test/test_vars_api.yaml'), 'utf8'));
    expect(result.playbook?.path).toBe('/vars_test/api_test');
  });

  it('reads the cursor loops of the PFT page continuation fixture', () => {
    const result = parsePlaybook(fs.readFileSync(path.join(FIXTURES, 'pft_flow_test/test_pft_page_continuation.yaml'), 'utf8'));
    const loop = result.playbook?.steps.find((s) => s.name === 'fetch_pages')?.loop;
    expect(loop).toMatchObject({
      source: { kind: 'cursor', cursor: { kind: 'postgres', auth: 'pg_k8s' } },
      iterator: 'page',
      mode: 'cursor',
      maxInFlight: 1,
      frame: {
        maxRows: 50,
        maxSeconds: 30,
        maxBytes: 67108864,
        leaseSeconds: 120,
        heartbeatSeconds: 30,
        rowConcurrency: 1,
        process: 'row',
        maxAttempts: 3,
      },
    });
  });

  it('reads workbook entries with their input placeholders and assert metadata', () => {
    const result = parsePlaybook(fs.readFileSync(path.join(FIXTURES, 'control_flow_workbook/control_flow_workbook.yaml'), 'utf8'));
    const entry = result.playbook?.workbook[0];
    expect(entry?.name).toBe('compute_flag');
    expect(entry?.task).toMatchObject({ name: 'compute_flag', kind: 'python', input: { temperature_c: null } });
    expect(entry?.task.config.assert).toEqual({ expects: ['temperature_c'], returns: ['is_hot', 'message'] });
  });
});
