import type { Sink } from '../model';
import { compileRetryThen, type CompiledThen } from './compile-retry-then';

type Reported = Array<[string, string]>;
const PATH = 'workflow[0].retry[1].then';

const compiledTasks: Array<[unknown, string]> = [];
const compileSink = (raw: unknown, path: string): Sink | undefined => {
  compiledTasks.push([raw, path]);
  return raw === 'bad' ? undefined : { kind: 'table', table: String(raw), mode: 'insert', auth: 'pg' };
};

function compile(raw: unknown): { then: CompiledThen | undefined; reports: Reported } {
  const reports: Reported = [];
  const then = compileRetryThen(raw, PATH, (path, message) => reports.push([path, message]), compileSink);
  return { then, reports };
}

beforeEach(() => {
  compiledTasks.length = 0;
});

describe('compileRetryThen', () => {
  it('treats a then with only max_attempts as an error-side retry', () => {
    expect(compile({ max_attempts: 2 }).then?.on).toBe('error');
  });

  it.each(['next_call', 'collect', 'per_iteration', 'sink'])('treats a then with %s as a success-side continuation', (key) => {
    const { then } = compile({ [key]: key === 'collect' ? 'append' : key === 'next_call' ? {} : key === 'sink' ? 'raw' : { sink: 'raw' } });
    expect(then?.on).toBe('success');
    expect(then?.action.do).toBe('continue');
  });

  it('keeps next_call values unrendered and accepts the request keys and aliases', () => {
    const nextCall = {
      params: { page: '{{ (response.data.page | int) + 1 }}', pageSize: '{{ response.data.pageSize }}' },
      url: '{{ response.links.next }}',
      headers: { 'X-Cursor': '{{ response.cursor }}' },
      body: { cursor: null },
      args: { cursor_id: '{{ response[-1].id }}' },
      input: { job_id: '{{ job_id }}' },
      endpoint: '/x',
      payload: {},
      json: {},
      data: {},
      method: 'POST',
      query: 'SELECT 1',
      command: 'SELECT 2',
      timeout: 5,
    };
    const { then, reports } = compile({ max_attempts: 7, next_call: nextCall });
    expect(reports).toEqual([]);
    expect(then).toEqual({ on: 'success', action: { do: 'continue', maxAttempts: 7, nextCall }, set: [] });
  });

  it('compiles collect in full, as a short string, and with defaults', () => {
    expect(compile({ collect: { strategy: 'merge', path: 'data.items', into: 'user_pages' } }).then?.action).toMatchObject({
      collect: { strategy: 'merge', path: 'data.items', into: 'user_pages' },
    });
    expect(compile({ collect: 'replace' }).then?.action).toMatchObject({ collect: { strategy: 'replace' } });
    expect(compile({ collect: {} }).then?.action).toMatchObject({ collect: { strategy: 'append' } });
    expect(compile({ collect: { path: 'rows[0].items' } }).then?.action).toMatchObject({
      collect: { strategy: 'append', path: 'rows[0].items' },
    });
  });

  it('hands per_iteration.sink to the parser with its path', () => {
    const { then, reports } = compile({ next_call: {}, per_iteration: { sink: 'raw_events' } });
    expect(reports).toEqual([]);
    expect(compiledTasks).toEqual([['raw_events', `${PATH}.per_iteration.sink`]]);
    expect(then?.action).toMatchObject({ perIteration: { sink: { kind: 'table', table: 'raw_events' } } });
  });

  it('leaves perIteration out when the parser could not compile the sink', () => {
    const { then } = compile({ next_call: {}, per_iteration: { sink: 'bad' } });
    expect(then?.action).not.toHaveProperty('perIteration');
  });

  it('leaves perIteration out when per_iteration has no sink', () => {
    const { then, reports } = compile({ next_call: {}, per_iteration: {} });
    expect(reports).toEqual([]);
    expect(then?.action).not.toHaveProperty('perIteration');
  });

  it('compiles then.set on the success side', () => {
    expect(compile({ next_call: {}, set: { 'ctx.pages': '{{ _retry.index }}' } }).then?.set).toEqual([
      { scope: 'ctx', key: 'pages', value: '{{ _retry.index }}' },
    ]);
  });

  it.each<[string, unknown, string, RegExp]>([
    ['a next_call that is a string', { next_call: 'page=2' }, `${PATH}.next_call`, /must be a mapping of request keys/],
    ['an unknown next_call key', { next_call: { parms: {} } }, `${PATH}.next_call.parms`, /unknown key `parms` in `next_call`/],
    ['a non-JSON next_call value', { next_call: { params: { at: new Date(0) } } }, `${PATH}.next_call.params.at`, /got a date/],
    ['a collect that is a list', { collect: ['append'] }, `${PATH}.collect`, /must be a mapping \{strategy, path, into\}/],
    [
      'an unknown collect strategy',
      { collect: { strategy: 'concat' } },
      `${PATH}.collect.strategy`,
      /unknown collect strategy "concat"; expected one of: append, replace, merge/,
    ],
    ['an unknown short collect strategy', { collect: 'concat' }, `${PATH}.collect`, /unknown collect strategy "concat"/],
    ['an unknown collect key', { collect: { strategy: 'append', as: 'x' } }, `${PATH}.collect.as`, /unknown key `as`/],
    ['a bad collect path', { collect: { path: 'data..items' } }, `${PATH}.collect.path`, /dotted path like data.items/],
    ['a bad collect into', { collect: { into: 'my pages' } }, `${PATH}.collect.into`, /must be a name, got "my pages"/],
    ['a per_iteration that is a list', { next_call: {}, per_iteration: [] }, `${PATH}.per_iteration`, /must be a mapping \{sink/],
    ['an unknown per_iteration key', { next_call: {}, per_iteration: { sinks: {} } }, `${PATH}.per_iteration.sinks`, /unknown key `sinks`/],
    ['two sinks', { per_iteration: { sink: 'a' }, sink: 'b' }, `${PATH}.sink`, /give the sink once/],
    ['a negative page cap', { next_call: {}, max_attempts: -5 }, `${PATH}.max_attempts`, /at least 1/],
    ['an error-side key on the success side', { next_call: {}, max_delay: 3 }, PATH, /mixes error-side keys \(max_delay\)/],
  ])('reports %s', (_name, raw, path, message) => {
    const { reports } = compile(raw);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.[0]).toBe(path);
    expect(reports[0]?.[1]).toMatch(message);
  });

  it('forces the side when asked', () => {
    const reports: Reported = [];
    const then = compileRetryThen({ while: '{{ x }}' }, PATH, (p, m) => reports.push([p, m]), compileSink, {
      side: 'success',
      extraKeys: ['while'],
    });
    expect(reports).toEqual([]);
    expect(then).toEqual({ on: 'success', action: { do: 'continue', maxAttempts: 100, nextCall: {} }, set: [] });
  });
});
