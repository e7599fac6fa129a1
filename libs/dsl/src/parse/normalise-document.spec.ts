import { parsePlaybook } from './parse-playbook';
import { HEADER, parseOk, playbookText, problemsOf } from './testing/playbook-text';

const NOOP_STEP = '- step: start\n  tool: {kind: noop}';

describe('the document', () => {
  it.each(['noetl.io/v2', 'noetl.io/v1', 'noetl.io/v10'])('accepts apiVersion %s', (version) => {
    const playbook = parseOk(playbookText(NOOP_STEP).replace('noetl.io/v2', version));
    expect(playbook.apiVersion).toBe(version);
  });

  it('reads name, path (default: the name), description, metadata, workload and the entry step', () => {
    const playbook = parseOk(
      [
        'apiVersion: noetl.io/v2',
        'kind: Playbook',
        'metadata: {name: orders, description: d, labels: {a: b}}',
        'workload: {n: 1}',
        'workflow:',
        '- step: a',
        '  tool: {kind: noop}',
      ].join('\n'),
    );
    expect(playbook).toMatchObject({
      kind: 'Playbook',
      name: 'orders',
      path: 'orders',
      description: 'd',
      metadata: { name: 'orders', description: 'd', labels: { a: 'b' } },
      workload: { n: 1 },
      keychain: [],
      workbook: [],
      executor: { entryStep: 'a' },
    });
  });

  it('enters at a step named start when there is one, else at the first step', () => {
    const playbook = parseOk(playbookText('- step: first\n  tool: {kind: noop}\n  next: start\n- step: start\n  tool: {kind: noop}'));
    expect(playbook.executor).toEqual({ entryStep: 'start' });
  });

  it('reads executor.spec entry_step and final_step; unknown keys of spec are allowed', () => {
    const playbook = parseOk(
      playbookText(
        `${NOOP_STEP}\n  next: b\n- step: b\n  tool: {kind: noop}`,
        'executor:\n  profile: local\n  spec: {entry_step: b, final_step: start, no_next_is_error: false}',
      ),
    );
    expect(playbook.executor).toEqual({ entryStep: 'b', finalStep: 'start' });
  });

  it('reports executor steps that do not exist', () => {
    const text = playbookText(NOOP_STEP, 'executor:\n  spec:\n    entry_step: begin\n    final_step: 3');
    expect(problemsOf(text)).toEqual([
      { path: 'executor.spec.entry_step', line: 10, column: 17, message: 'unknown step "begin"' },
      { path: 'executor.spec.final_step', line: 11, column: 17, message: '"final_step" must be a step name' },
    ]);
  });

  it('keeps keychain declarations as written', () => {
    const playbook = parseOk(playbookText(NOOP_STEP, 'keychain:\n  - {name: token, kind: bearer, credential: api}'));
    expect(playbook.keychain).toEqual([{ name: 'token', spec: { kind: 'bearer', credential: 'api' } }]);
  });

  it('reports a header with every problem at once', () => {
    const text = [
      'apiVersion: argoproj.io/v1',
      'kind: Workflow',
      'metadata: {labels: {}}',
      'workload: [1]',
      'colour: blue',
      'workflow: []',
    ].join('\n');
    expect(problemsOf(text)).toEqual([
      { path: 'apiVersion', line: 1, column: 13, message: 'unsupported apiVersion "argoproj.io/v1" (expected noetl.io/v2)' },
      { path: 'kind', line: 2, column: 7, message: '"kind" must be "Playbook", not "Workflow"' },
      { path: 'metadata.name', line: 3, column: 1, message: 'metadata needs "name"' },
      { path: 'workload', line: 4, column: 1, message: '"workload" must be a mapping' },
      { path: 'colour', line: 5, column: 1, message: 'unknown key "colour"' },
      { path: 'workflow', line: 6, column: 1, message: '"workflow" needs at least one step' },
    ]);
  });

  it('reports missing sections at the top of the document', () => {
    expect(problemsOf('kind: Playbook\n').map((p) => [p.path, p.line, p.message])).toEqual([
      ['', 1, 'missing "apiVersion" (e.g. noetl.io/v2)'],
      ['', 1, 'missing "metadata" with "name"'],
      ['', 1, 'missing "workflow" (a list of steps)'],
    ]);
  });

  it.each([
    ['a list', '- a\n- b\n'],
    ['empty', ''],
  ])('rejects a document that is %s', (_label, text) => {
    expect(problemsOf(text)[0]?.message).toContain('a playbook must be a YAML mapping');
  });

  const doc = (parts: { metadata?: string; workflow?: string; extra?: string }): string =>
    [
      'apiVersion: noetl.io/v2',
      'kind: Playbook',
      parts.metadata ?? 'metadata: {name: t}',
      parts.workflow ?? `workflow:\n${NOOP_STEP}`,
      parts.extra ?? '',
    ].join('\n');

  it.each([
    [{ workflow: 'workflow: {a: 1}' }, '"workflow" must be a list of steps'],
    [{ workflow: 'workflow:' }, '"workflow" needs at least one step'],
    [{ metadata: 'metadata: 1' }, '"metadata" must be a mapping'],
    [{ extra: 'executor: 1' }, '"executor" must be a mapping'],
    [{ extra: 'executor: {spec: 1}' }, '"spec" must be a mapping'],
    [{ extra: 'executor: {speck: {}}' }, 'unknown key "speck" (did you mean "spec"?)'],
    [{ extra: 'keychain: {a: 1}' }, '"keychain" must be a list'],
    [{ extra: 'keychain: [1]' }, 'a keychain entry must be a mapping with "name"'],
    [{ extra: 'keychain: [{kind: x}]' }, 'a keychain entry needs a "name"'],
    [{ extra: 'workbook: [{name: w}]' }, 'a workbook entry needs "tool": one tool mapping with a "kind"'],
    [{ extra: 'workbook: [{name: w, tool: {kind: noop}, expects: 1}]' }, 'unknown key "expects"'],
  ])('reports %j', (parts, message) => {
    expect(problemsOf(doc(parts)).map((p) => p.message)).toContain(message);
  });

  it('reports duplicate keychain and workbook names with the first line', () => {
    const text = playbookText(NOOP_STEP, 'workbook:\n  - {name: w, tool: {kind: noop}}\n  - {name: w, tool: {kind: noop}}');
    expect(problemsOf(text)).toEqual([
      { path: 'workbook[1].name', line: 10, column: 12, message: 'duplicate workbook name "w" (first at line 9)' },
    ]);
  });

  it('keeps a metadata path as written, and rejects an empty one', () => {
    expect(parseOk(playbookText(NOOP_STEP).replace('  name: t', '  name: t\n  path: /a/b')).path).toBe('/a/b');
    const text = playbookText(NOOP_STEP).replace('  name: t', '  name: t\n  path: ""');
    expect(problemsOf(text)).toEqual([
      { path: 'metadata.path', line: 5, column: 9, message: '"metadata.path" must be a non-empty string' },
    ]);
  });

  it('returns a playbook only when there is no problem', () => {
    expect(parsePlaybook(playbookText(NOOP_STEP)).problems).toEqual([]);
    expect(parsePlaybook('apiVersion: noetl.io/v2\n').playbook).toBeUndefined();
  });
});

describe('step references', () => {
  it('reports an unknown arc target at its line', () => {
    const text = [
      HEADER, //                                          lines 1-5
      '- step: start', //                                  6
      '  tool: {kind: noop}', //                           7
      '  next: a', //                                      8
      '- step: a', //                                      9
      '  tool: {kind: noop}', //                          10
      '  next: [b]', //                                   11
      '- step: b', //                                     12
      '  next:', //                                       13
      '    arcs: [{step: nowhere, when: "{{ x }}"}]', //  14
    ].join('\n');
    expect(problemsOf(text)).toEqual([{ path: 'workflow[2].next.arcs[0].step', line: 14, column: 19, message: 'unknown step "nowhere"' }]);
  });

  it('reports unknown targets of every next spelling, all together', () => {
    const text = playbookText(`
      - step: start
        tool: {kind: noop}
        next: missing_one
      - step: b
        tool: {kind: noop}
        next: [start, missing_two, {step: missing_three}]
      - step: c
        next: {step: missing_four}`);
    expect(problemsOf(text).map((p) => [p.path, p.line, p.message])).toEqual([
      ['workflow[0].next', 8, 'unknown step "missing_one"'],
      ['workflow[1].next[1]', 11, 'unknown step "missing_two"'],
      ['workflow[1].next[2].step', 11, 'unknown step "missing_three"'],
      ['workflow[2].next.step', 13, 'unknown step "missing_four"'],
    ]);
  });

  it('reports a duplicate step name with the line of the first', () => {
    const text = playbookText(`
      - step: start
        tool: {kind: noop}
        next: start
      - step: start
        tool: {kind: noop}`);
    expect(problemsOf(text)).toEqual([
      { path: 'workflow[1].step', line: 9, column: 9, message: 'duplicate step name "start" (first at line 6)' },
    ]);
  });

  it('reports a workbook call to an entry that does not exist', () => {
    const text = playbookText('- step: start\n  tool: {kind: workbook, name: nope}', 'workbook:\n  - {name: yes, tool: {kind: noop}}');
    expect(problemsOf(text)).toEqual([{ path: 'workflow[0].tool.name', line: 7, column: 32, message: 'unknown workbook entry "nope"' }]);
  });
});
