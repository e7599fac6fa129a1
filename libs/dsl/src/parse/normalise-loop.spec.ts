import { playbookText, problemsOf } from './testing/playbook-text';

/** The problems of one step whose `loop:` is `loop` (a flow mapping on line 7). */
function loopProblems(loop: string, extra = ''): Array<[string, number | undefined, string]> {
  return problemsOf(playbookText(`- step: s\n  loop: ${loop}\n  tool: {kind: noop}${extra}`)).map((p) => [p.path, p.line, p.message]);
}

describe('loop problems', () => {
  it.each([
    ['{in: "{{ a }}", cursor: {auth: pg, claim: "SELECT 1"}, iterator: i}', 'workflow[0].loop', 'loop has both "in" and "cursor"'],
    [
      '{collection: "{{ a }}", cursor: {auth: pg, claim: "SELECT 1"}, iterator: i}',
      'workflow[0].loop',
      'loop has both "collection" and "cursor"',
    ],
    ['{in: "{{ a }}"}', 'workflow[0].loop', 'loop needs "iterator"'],
    ['{iterator: i}', 'workflow[0].loop', 'loop needs "in" (or "collection") or "cursor"'],
    ['{in: "{{ a }}", collection: [], iterator: i}', 'workflow[0].loop.collection', '"in" and "collection" are aliases; give only one'],
    ['{in: 5, iterator: i}', 'workflow[0].loop.in', 'loop "in" must be a template or a list'],
    ['{in: [], iterator: "a b"}', 'workflow[0].loop.iterator', 'loop "iterator" must be a name such as "item", not "a b"'],
    [
      '{in: [], iterator: i, mode: fast}',
      'workflow[0].loop.mode',
      'unknown loop mode "fast" (expected "sequential", "parallel", "async" or "cursor")',
    ],
    [
      '{in: [], iterator: i, mode: parallel, spec: {mode: sequential}}',
      'workflow[0].loop.mode',
      'loop mode given twice: "sequential" in "spec.mode" and "parallel" in "mode"',
    ],
    ['{in: [], iterator: i, mode: cursor}', 'workflow[0].loop', 'loop mode "cursor" needs "loop.cursor"'],
    [
      '{cursor: {auth: pg, claim: "SELECT 1"}, iterator: i, mode: parallel}',
      'workflow[0].loop',
      'a loop with "cursor" must have mode "cursor", not "parallel"',
    ],
    [
      '{in: [], iterator: i, spec: {max_in_flight: 0}}',
      'workflow[0].loop.spec.max_in_flight',
      '"max_in_flight" must be a positive integer or a template, not 0',
    ],
    [
      '{in: [], iterator: i, concurrency: many}',
      'workflow[0].loop.concurrency',
      '"concurrency" must be a positive integer or a template, not "many"',
    ],
    [
      '{in: [], iterator: i, concurrency: 2, spec: {max_in_flight: 2}}',
      'workflow[0].loop.concurrency',
      '"concurrency" is also given as "spec.max_in_flight"; give it once',
    ],
    [
      '{in: [], iterator: i, spec: {loop_mode: scatter}}',
      'workflow[0].loop.spec.loop_mode',
      'unknown loop_mode "scatter" (expected "fanout")',
    ],
    ['{in: [], iterator: i, spec: {fanout: 3}}', 'workflow[0].loop.spec.fanout', '"fanout" must be a mapping'],
    [
      '{in: [], iterator: i, spec: {fanout: {max_shard_retries: -1}}}',
      'workflow[0].loop.spec.fanout.max_shard_retries',
      '"max_shard_retries" must be a non-negative integer, not -1',
    ],
    ['{in: [], iterator: i, spec: {fanout: {retries: 1}}}', 'workflow[0].loop.spec.fanout.retries', 'unknown key "retries"'],
    ['{in: [], iterator: i, spec: 1}', 'workflow[0].loop.spec', '"spec" must be a mapping'],
    ['{in: [], iterator: i, items: 1}', 'workflow[0].loop.items', 'unknown key "items"'],
    ['[1]', 'workflow[0].loop', '"loop" must be a mapping'],
  ])('%s', (loop, path, message) => {
    expect(loopProblems(loop)).toContainEqual([path, 7, message]);
  });

  it.each([
    ['{max_rows: 0}', 'max_rows', 'frame "max_rows" must be a positive integer, not 0'],
    ['{max_seconds: 1.5}', 'max_seconds', 'frame "max_seconds" must be a positive integer, not 1.5'],
    ['{lease_seconds: "120"}', 'lease_seconds', 'frame "lease_seconds" must be a positive integer, not "120"'],
    ['{process: batch}', 'process', 'frame "process" must be "row" or "frame", not "batch"'],
    ['{max_row: 5}', 'max_row', 'unknown key "max_row" (did you mean "max_rows"?)'],
    ['{lease_seconds: 10}', 'lease_seconds', 'frame "heartbeat_seconds" (30) must be less than "lease_seconds" (10)'],
  ])('frame %s', (frame, key, message) => {
    expect(loopProblems(`{in: [], iterator: i, spec: {frame: ${frame}}}`)).toContainEqual([
      `workflow[0].loop.spec.frame.${key}`,
      7,
      message,
    ]);
  });

  it('frame must be a mapping', () => {
    expect(loopProblems('{in: [], iterator: i, spec: {frame: 5}}')).toEqual([
      ['workflow[0].loop.spec.frame', 7, '"frame" must be a mapping'],
    ]);
  });

  it.each([
    ['{kind: mysql, auth: pg, claim: "SELECT 1"}', 'workflow[0].loop.cursor.kind', 'unknown cursor kind "mysql" (only "postgres")'],
    ['{auth: pg}', 'workflow[0].loop.cursor', 'cursor needs "claim" SQL'],
    ['{claim: "SELECT 1"}', 'workflow[0].loop.cursor', 'cursor needs "auth" or "connection"'],
    ['{auth: pg, claim: "SELECT 1", lease: 3}', 'workflow[0].loop.cursor.lease', 'unknown key "lease"'],
    ['claim', 'workflow[0].loop.cursor', '"cursor" must be a mapping {kind: postgres, auth, claim}'],
  ])('cursor %s', (cursor, path, message) => {
    expect(loopProblems(`{cursor: ${cursor}, iterator: i}`)).toContainEqual([path, 7, message]);
  });

  it.each([
    ['{tool: mysql, auth: pg, table: t}', 'workflow[0].loop.sink.tool', 'the table form of a sink writes to postgres, not "mysql"'],
    ['{tool: postgres, auth: pg, table: ""}', 'workflow[0].loop.sink.table', 'sink "table" must be a table name'],
    ['{tool: postgres, table: t}', 'workflow[0].loop.sink', 'a table sink needs "auth" (a credential name) or "connection"'],
    [
      '{tool: postgres, auth: pg, table: t, mode: merge}',
      'workflow[0].loop.sink.mode',
      'sink "mode" must be "insert" or "upsert", not "merge"',
    ],
    ['{tool: postgres, auth: pg, table: t, mode: upsert}', 'workflow[0].loop.sink', 'an upsert sink needs "key"'],
    [
      '{tool: postgres, auth: pg, table: t, key: [1]}',
      'workflow[0].loop.sink.key',
      'sink "key" must be a column name or a list of column names',
    ],
    ['{tool: postgres, auth: pg, table: t, colour: red}', 'workflow[0].loop.sink.colour', 'unknown key "colour"'],
    ['{tool: {kind: postgres, auth: pg}}', 'workflow[0].loop.sink.tool', 'postgres tool needs SQL in "query", "command" or "commands"'],
    ['{tool: {kind: noop}, table: t}', 'workflow[0].loop.sink.table', 'unknown key "table"'],
    ['{table: t}', 'workflow[0].loop.sink', 'a sink needs "tool": a tool mapping or "postgres" with "table"'],
    ['[1]', 'workflow[0].loop.sink', '"sink" must be a mapping with "tool"'],
  ])('sink %s', (sink, path, message) => {
    expect(loopProblems(`{in: [], iterator: i, sink: ${sink}}`)).toContainEqual([path, 7, message]);
  });

  it('reports a sink given both on the step and inside the loop', () => {
    const text = playbookText(
      '- step: s\n  loop: {in: [], iterator: i, sink: {tool: postgres, auth: pg, table: t}}\n  sink: {tool: postgres, auth: pg, table: u}\n  tool: {kind: noop}',
    );
    expect(problemsOf(text)).toEqual([
      expect.objectContaining({ path: 'workflow[0].sink', line: 8, message: 'a loop step has "sink" both on the step and inside "loop"' }),
    ]);
  });
});
