import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventType } from '@noetl/event-kernel';
import { CallError } from '../model';
import { parsePlaybook } from '../parse';
import { loopBodySpec } from './loop-body-spec';
import { PlannerHarness, workflow } from './testing/planner-harness';
import { readCallSpec, readLoopBodySpec } from './work-spec';

const ROOT = join(__dirname, '..', '..', '..', '..');

function playbookFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return playbookFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

describe('the work specs a worker reads back', () => {
  it('reads every command spec the planner issues, as the planner wrote it', () => {
    const h = new PlannerHarness(
      workflow(
        `
  - step: fetch
    tool: { kind: http, url: "http://example.test/{{ id }}" }
    retry:
      - when: "{{ output.status == 'pending' }}"
        then: { max_attempts: 3 }
    next: transform
  - step: transform
    tool:
      - name: double
        kind: javascript
        code: "result = input.n * 2"
      - name: store
        kind: noop
    input: { n: "{{ fetch.data.n }}" }
`,
        'workload: { id: 7 }',
      ),
    ).start();
    h.complete('fetch', { status_code: 200, data: { n: 21 } });
    const issued = h.ofType(EventType.CommandIssued);
    expect(issued.map((e) => e.payload.step)).toEqual(['fetch', 'transform']);
    for (const { payload } of issued) {
      const spec = readCallSpec(payload.spec, payload.step);
      expect(spec).toMatchObject({
        step: payload.step,
        tool: payload.spec['tool'],
        input: payload.spec['input'] ?? {},
        retry: payload.spec['retry'],
      });
    }
    const transform = readCallSpec(issued[1]!.payload.spec, 'transform');
    expect(transform.tool.pipeline).toBe(true);
    expect(transform.tool.tasks.map((task) => task.kind)).toEqual(['javascript', 'noop']);
  });

  it("reads the loop body of every loop step of the repository's playbooks", () => {
    let loops = 0;
    for (const file of [...playbookFiles(join(ROOT, 'examples')), ...playbookFiles(join(ROOT, 'test', 'fixtures'))]) {
      const { playbook } = parsePlaybook(readFileSync(file, 'utf8'));
      for (const step of playbook?.steps.filter((s) => s.loop && s.tool) ?? []) {
        const written = loopBodySpec(playbook!, step);
        const read = readLoopBodySpec(written, step.name);
        expect({ file, ...read }).toEqual({ file, ...written, sink: written['sink'] ?? null, cursor: written['cursor'] ?? null });
        loops++;
      }
    }
    expect(loops).toBeGreaterThan(10);
  });

  it('gives the defaults of a loop body written before a field existed', () => {
    const tool = { tasks: [{ name: 'each', kind: 'noop', config: {}, input: {}, policies: [], set: [] }], pipeline: false };
    expect(readLoopBodySpec({ tool }, 'each')).toEqual({
      step: 'each',
      tool,
      input: {},
      retry: [],
      iterator: 'item',
      process: 'row',
      row_concurrency: 1,
      max_rows: 1,
      sink: null,
      cursor: null,
    });
  });

  it.each([
    ['no tool', {}, 'tool'],
    ['a tool without tasks', { tool: { pipeline: false } }, 'tool'],
    [
      'a task of an unknown kind',
      { tool: { tasks: [{ name: 'x', kind: 'ftp', config: {}, input: {}, policies: [], set: [] }], pipeline: false } },
      'tool',
    ],
    ['retry that is no list of policies', { tool: { tasks: [], pipeline: false }, retry: [{ when: true }] }, 'retry'],
    ['input that is no object', { tool: { tasks: [], pipeline: false }, input: [1] }, 'input'],
    ['a keychain that is no list of entries', { tool: { tasks: [], pipeline: false }, keychain: 'api' }, 'keychain'],
  ])('refuses a command spec with %s, naming the field', (_label, spec, field) => {
    const read = (): unknown => readCallSpec(spec as never, 'fetch');
    expect(read).toThrow(CallError);
    expect(read).toThrow(`the command spec of step fetch is malformed: "${field}"`);
  });

  it('refuses a loop body whose cursor or sink is not what the planner writes', () => {
    const tool = { tasks: [], pipeline: false };
    expect(() => readLoopBodySpec({ tool, cursor: { kind: 'mysql', claim: 'x' } }, 'each')).toThrow('"cursor"');
    expect(() => readLoopBodySpec({ tool, sink: { kind: 'table', table: 't', mode: 'merge' } }, 'each')).toThrow('"sink"');
    expect(() => readLoopBodySpec({ tool, max_rows: -1 }, 'each')).toThrow('"max_rows"');
  });
});
