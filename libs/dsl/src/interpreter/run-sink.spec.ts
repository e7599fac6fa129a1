import { CallError, type Sink, type Task } from '../model';
import { runSink } from './run-sink';
import { fakeDeps } from './testing/fake-deps';

const signal = new AbortController().signal;
const scope = { execution_id: '42', ctx: { db: 'pg_main' }, iter: { item: { id: 3 } } };

function tableSink(over: Partial<Extract<Sink, { kind: 'table' }>> = {}): Sink {
  return { kind: 'table', table: 'public.results', mode: 'insert', auth: '{{ ctx.db }}', ...over };
}

describe('runSink: table form', () => {
  it('inserts the iteration result as the row by default', async () => {
    const deps = fakeDeps(() => ({ row_count: 1 }));
    const outcome = await runSink(tableSink(), { iterationResult: { id: 3, payload: { a: [1] } }, scope, signal }, deps);
    expect(outcome).toEqual({ status: 'ok' });
    expect(deps.calls).toEqual([
      {
        kind: 'postgres',
        config: {
          command:
            'INSERT INTO "public"."results" ("id", "payload") SELECT "id", "payload" FROM jsonb_populate_recordset(NULL::"public"."results", $1::jsonb)',
          params: ['[{"id":3,"payload":{"a":[1]}}]'],
          auth: 'pg_main',
        },
      },
    ]);
  });

  it('writes a list (the result, or args rendering to one) as one row per mapping, and nothing for an empty list', async () => {
    const deps = fakeDeps(() => ({ row_count: 2 }));
    expect(await runSink(tableSink(), { iterationResult: [{ id: 1 }, { id: 2 }], scope, signal }, deps)).toEqual({ status: 'ok' });
    expect(deps.calls[0]?.config['params']).toEqual(['[{"id":1},{"id":2}]']);
    const fromArgs = tableSink({ args: '{{ result.items }}' });
    expect(await runSink(fromArgs, { iterationResult: { items: [{ id: 5 }] }, scope, signal }, deps)).toEqual({ status: 'ok' });
    expect(deps.calls[1]?.config['params']).toEqual(['[{"id":5}]']);
    expect(await runSink(tableSink(), { iterationResult: [], scope, signal }, deps)).toEqual({ status: 'ok' });
    expect(deps.calls).toHaveLength(2);
  });

  it('renders args with result and the scope, and upserts on the key; values are parameters, never rendered again', async () => {
    const deps = fakeDeps(() => ({ row_count: 1 }));
    const sink = tableSink({
      mode: 'upsert',
      key: ['execution_id', 'item_id'],
      auth: undefined,
      connection: 'postgres://u@h/{{ ctx.db }}',
      args: {
        execution_id: '{{ execution_id | int }}',
        item_id: '{{ iter.item.id }}',
        items: '{{ result.items }}',
        note: '{{ result.note }}',
      },
    });
    const outcome = await runSink(sink, { iterationResult: { items: [{ x: 1 }], note: '{{ not rendered }}' }, scope, signal }, deps);
    expect(outcome).toEqual({ status: 'ok' });
    const columns = '"execution_id", "item_id", "items", "note"';
    expect(deps.calls[0]?.config).toEqual({
      command:
        `INSERT INTO "public"."results" (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::"public"."results", $1::jsonb)` +
        ' ON CONFLICT ("execution_id", "item_id") DO UPDATE SET "items" = EXCLUDED."items", "note" = EXCLUDED."note"',
      params: ['[{"execution_id":42,"item_id":3,"items":[{"x":1}],"note":"{{ not rendered }}"}]'],
      connection: 'postgres://u@h/pg_main',
    });
  });

  it('refuses a bad identifier as an internal error without calling the database', async () => {
    const deps = fakeDeps(() => ({}));
    const outcome = await runSink(tableSink({ table: 'results; drop table x' }), { iterationResult: { a: 1 }, scope, signal }, deps);
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'internal' } });
    expect(deps.calls).toHaveLength(0);
    const column = await runSink(tableSink(), { iterationResult: { 'a b': 1 }, scope, signal }, deps);
    expect(column).toMatchObject({ status: 'error', error: { kind: 'internal' } });
  });

  it('fails with kind template when args cannot render', async () => {
    const deps = fakeDeps(() => ({}));
    const outcome = await runSink(tableSink({ args: { a: '{{ "{" | fromjson }}' } }), { iterationResult: {}, scope, signal }, deps);
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'template' } });
  });

  it('fails when the database call fails', async () => {
    const deps = fakeDeps(() => {
      throw new CallError({ kind: 'db', message: 'duplicate key', retryable: false, code: '23505' });
    });
    const outcome = await runSink(tableSink(), { iterationResult: { a: 1 }, scope, signal }, deps);
    expect(outcome).toEqual({ status: 'error', error: { kind: 'db', message: 'duplicate key', retryable: false, code: '23505' } });
  });
});

describe('runSink: tool form', () => {
  const task: Task = {
    name: 'sink',
    kind: 'postgres',
    config: { auth: '{{ ctx.db }}', command: 'insert {{ result.id }} for {{ iter.item.id }} in {{ execution_id }}' },
    input: {},
    policies: [],
    set: [],
  };

  it('runs the task with result = the iteration result', async () => {
    const deps = fakeDeps(() => ({ row_count: 1 }));
    const outcome = await runSink({ kind: 'task', task }, { iterationResult: { id: 9 }, scope, signal }, deps);
    expect(outcome).toEqual({ status: 'ok' });
    expect(deps.calls[0]?.config).toEqual({ auth: 'pg_main', command: 'insert 9 for 3 in 42', input: {} });
  });

  it('fails the iteration when the task fails (after its own policies)', async () => {
    let n = 0;
    const deps = fakeDeps(() => {
      n += 1;
      throw new CallError({ kind: 'connection', message: 'ECONNRESET', retryable: true });
    });
    const retrying: Task = {
      ...task,
      policies: [
        {
          when: true,
          on: 'any',
          action: {
            do: 'retry',
            maxAttempts: 2,
            backoff: { strategy: 'none', delaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: false },
          },
          set: [],
        },
      ],
    };
    const outcome = await runSink({ kind: 'task', task: retrying }, { iterationResult: { id: 9 }, scope, signal }, deps);
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'connection' } });
    expect(n).toBe(2);
  });
});
