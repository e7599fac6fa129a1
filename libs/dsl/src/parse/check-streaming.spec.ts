import { streamChunkRows } from './check-streaming';
import { playbookText, problemsOf, stepsOf } from './testing/playbook-text';

const PG = 'kind: postgres, auth: pg, query: "SELECT * FROM t ORDER BY id"';

describe('streaming steps at registration (DSL.md s3 stream)', () => {
  it('accepts a postgres step with stream and arcs on call.partial beside its normal arcs', () => {
    const [step] = stepsOf(`
      - step: read
        tool: {${PG}, stream: {chunk_rows: 1000}}
        next:
          - {step: each_chunk, on: call.partial, when: "{{ chunk.row_count > 0 }}"}
          - {step: done, on: call.done}
      - step: each_chunk
        tool: {kind: noop}
      - step: done
        tool: {kind: noop}
    `);
    expect(streamChunkRows(step!)).toBe(1000);
    expect(step?.next.arcs.map((arc) => [arc.step, arc.on])).toEqual([
      ['each_chunk', 'call.partial'],
      ['done', undefined],
    ]);
  });

  it('accepts stream in the bare-kind form', () => {
    const [step] = stepsOf(`
      - step: read
        tool: postgres
        auth: pg
        query: SELECT 1
        stream: {chunk_rows: 5}
    `);
    expect(streamChunkRows(step!)).toBe(5);
  });

  it.each([
    [
      `- step: s\n  tool: {${PG}, stream: {chunk_rows: 0}}`,
      'workflow[0].tool.stream.chunk_rows',
      '"chunk_rows" must be an integer from 1 to 1000000, not 0',
    ],
    [
      `- step: s\n  tool: {${PG}, stream: {chunk_rows: "10"}}`,
      'workflow[0].tool.stream.chunk_rows',
      '"chunk_rows" must be an integer from 1 to 1000000, not "10"',
    ],
    [`- step: s\n  tool: {${PG}, stream: {rows: 10}}`, 'workflow[0].tool.stream.rows', 'unknown key "rows"'],
    [`- step: s\n  tool: {${PG}, stream: 10}`, 'workflow[0].tool.stream', '"stream" must be a mapping {chunk_rows: N}'],
    [
      '- step: s\n  tool: {kind: http, url: "http://x", stream: {chunk_rows: 10}}',
      'workflow[0].tool.stream',
      '"stream" is a key of the postgres tool, not of http',
    ],
    [
      `- step: s\n  loop: {in: [1], iterator: i}\n  tool: {${PG}, stream: {chunk_rows: 10}}`,
      'workflow[0].tool.stream',
      '"stream" needs a step whose tool is one postgres task, not a loop body',
    ],
    [
      '- step: s\n  tool: {kind: noop}\n  next: [{step: s, on: call.partial}]',
      'workflow[0].next',
      'an arc "on: call.partial" needs a step that streams (a postgres tool with stream: {chunk_rows: N})',
    ],
    [
      '- step: s\n  tool: {kind: noop}\n  next: [{step: s, on: chunk}]',
      'workflow[0].next[0].on',
      '"on" must be "call.partial" (once per streamed chunk) or "call.done" (the default), not "chunk"',
    ],
  ])('rejects %s', (steps, path, message) => {
    expect(problemsOf(playbookText(steps))).toContainEqual(expect.objectContaining({ path, message }));
  });
});
