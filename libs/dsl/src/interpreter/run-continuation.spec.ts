import { CallError, type Policy } from '../model';
import type { ToolKind } from '../model';
import { runStepCall } from './run-step-call';
import { defaultScope, errorResult, fakeDeps, http, httpError, okResult, rows, runYaml, stepOf } from './testing/fake-deps';

/** A paged API: page p of 3 holds items [p*10, p*10+1]. */
function pagedApi(kind: ToolKind, config: Record<string, unknown>): unknown {
  if (kind !== 'http') return { row_count: 1 };
  const page = Number((config.params as Record<string, unknown>).page);
  return http({ items: [page * 10, page * 10 + 1], paging: { page, hasMore: page < 3 }, meta: { [`p${page}`]: true } });
}

const paginate = (then: string, extraRetry = '') => `
  - step: fetch_all
    input: { who: step }
    tool:
      kind: http
      url: "{{ api_url }}/items"
      params: { page: 1, pageSize: "{{ page_size }}" }
    retry:${extraRetry}
      - when: "{{ response.paging.hasMore }}"
        then:
${then
  .split('\n')
  .map((line) => `          ${line}`)
  .join('\n')}
  `;

describe('runStepCall: success-side continuation (pagination)', () => {
  it('appends pages at collect.path into the named collection, merging next_call over the previous request', async () => {
    const deps = fakeDeps(pagedApi);
    const result = okResult(
      await runYaml(
        paginate(`max_attempts: 10
next_call:
  params: { page: "{{ response.paging.page + 1 }}" }
  headers: { x-index: "{{ _retry.index }}", x-seen: "{{ seen | length }}" }
collect: { strategy: append, path: items, into: seen }`),
        deps,
      ),
    );
    expect(deps.calls.map((c) => c.config)).toEqual([
      { url: 'http://api.test/items', params: { page: 1, pageSize: 2 }, input: { who: 'step' } },
      { url: 'http://api.test/items', params: { page: 2, pageSize: 2 }, input: { who: 'step' }, headers: { 'x-index': 1, 'x-seen': 2 } },
      { url: 'http://api.test/items', params: { page: 3, pageSize: 2 }, input: { who: 'step' }, headers: { 'x-index': 2, 'x-seen': 4 } },
    ]);
    const items = [10, 11, 20, 21, 30, 31];
    expect(result.result).toEqual({ data: items, pages: 3, page_count: 3, seen: items, last: pagedApi('http', { params: { page: 3 } }) });
    // The three pages' calls are reported as one record: the history does not grow with the pages.
    expect(result.calls.map((c) => [c.task, c.attempts])).toEqual([['fetch_all', 3]]);
  });

  it('exposes the collection as pages by default, and into: pages makes pages the collection', async () => {
    const deps = fakeDeps(pagedApi);
    const { result } = okResult(
      await runYaml(
        paginate(
          `next_call: { params: { page: "{{ response.paging.page + 1 }}", n: "{{ pages | length }}" } }\ncollect: { path: paging.page, into: pages }`,
        ),
        deps,
      ),
    );
    expect(deps.calls.map((c) => (c.config.params as Record<string, unknown>).n)).toEqual([undefined, 1, 2]);
    expect(result).toMatchObject({ data: [1, 2, 3], pages: [1, 2, 3], page_count: 3 });
  });

  it('replaces the collection (polling keeps the latest)', async () => {
    const deps = fakeDeps(pagedApi);
    const { result } = okResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }\ncollect: { strategy: replace, path: paging }`),
        deps,
      ),
    );
    expect(result).toMatchObject({ data: { page: 3, hasMore: false }, pages: { page: 3, hasMore: false }, page_count: 3 });
  });

  it('merges mappings', async () => {
    const deps = fakeDeps(pagedApi);
    const { result } = okResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }\ncollect: { strategy: merge, path: meta }`),
        deps,
      ),
    );
    expect(result).toMatchObject({ data: { p1: true, p2: true, p3: true }, page_count: 3 });
  });

  it('stops at max_attempts and applies the matched policy set', async () => {
    const deps = fakeDeps(() => http({ items: [1], paging: { hasMore: true } }));
    const result = okResult(
      await runYaml(
        paginate(
          `max_attempts: 2\nnext_call: { params: { page: 9 } }\ncollect: { path: items }\nset: { ctx.fetched: "{{ _retry.count }}" }`,
        ),
        deps,
      ),
    );
    expect(deps.calls).toHaveLength(2);
    expect(result.result).toMatchObject({ data: [1, 1], pages: [1, 1], page_count: 2 });
    expect(result.ctx).toEqual({ fetched: 2 });
  });

  it('gives a single page the pagination shape when nothing continues', async () => {
    const deps = fakeDeps(() => http({ items: [7], paging: { hasMore: false } }));
    const { result } = okResult(await runYaml(paginate(`next_call: { params: { page: 2 } }\ncollect: { path: items }`), deps));
    expect(result).toEqual({ data: [7], pages: [7], page_count: 1, last: http({ items: [7], paging: { hasMore: false } }) });
  });

  it('runs per_iteration.sink once per page with page, _retry and result in scope', async () => {
    const deps = fakeDeps(pagedApi);
    const result = okResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }
collect: { path: items }
per_iteration:
  sink:
    tool:
      kind: postgres
      auth: pg
      command: "insert {{ page.paging.page }} #{{ _retry.index }} n={{ result.items | length }} exec={{ execution_id }}"`),
        deps,
      ),
    );
    expect(deps.calls.map((c) => `${c.kind}:${String(c.config.command ?? (c.config.params as Record<string, unknown>).page)}`)).toEqual([
      'http:1',
      'postgres:insert 1 #1 n=2 exec=42',
      'http:2',
      'postgres:insert 2 #2 n=2 exec=42',
      'http:3',
      'postgres:insert 3 #3 n=2 exec=42',
    ]);
    expect(result.calls.map((c) => [c.task, c.attempts])).toEqual([
      ['fetch_all', 3],
      ['sink', 3],
    ]);
  });

  it('writes each page with the seed-004 table sink: one row per page from args, or the page items as rows', async () => {
    const deps = fakeDeps(pagedApi);
    okResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }
per_iteration:
  sink:
    tool:
      kind: postgres
      auth: pg
      table: raw_data
      mode: upsert
      key: page
      args: { page: "{{ page.paging.page }}", items: "{{ page.items }}", iteration: "{{ _retry.index }}" }`),
        deps,
      ),
    );
    const writes = deps.calls.filter((c) => c.kind === 'postgres');
    expect(writes.map((c) => c.config.params)).toEqual([
      ['[{"page":1,"items":[10,11],"iteration":1}]'],
      ['[{"page":2,"items":[20,21],"iteration":2}]'],
      ['[{"page":3,"items":[30,31],"iteration":3}]'],
    ]);
    expect(writes[0]?.config).toMatchObject({ auth: 'pg', command: expect.stringContaining('ON CONFLICT ("page") DO UPDATE SET') });

    const rowsDeps = fakeDeps(pagedApi);
    okResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }
per_iteration: { sink: { tool: { kind: postgres, auth: pg, table: raw_items, args: "{{ [{'n': page.items[0]}, {'n': page.items[1]}] }}" } } }`),
        rowsDeps,
      ),
    );
    expect(rowsDeps.calls.filter((c) => c.kind === 'postgres').map((c) => c.config.params)).toEqual([
      ['[{"n":10},{"n":11}]'],
      ['[{"n":20},{"n":21}]'],
      ['[{"n":30},{"n":31}]'],
    ]);
  });

  it('fails the step when a page sink fails, and fetches no more pages', async () => {
    const deps = fakeDeps((kind, config) => {
      if (kind === 'postgres')
        throw new CallError({ kind: 'db', message: 'relation "raw" does not exist', retryable: false, code: '42P01' });
      return pagedApi(kind, config);
    });
    const result = errorResult(
      await runYaml(
        paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }
per_iteration: { sink: { tool: { kind: postgres, auth: pg, command: "insert" } } }`),
        deps,
      ),
    );
    expect(result.error).toMatchObject({ kind: 'db', code: '42P01' });
    expect(deps.calls).toHaveLength(2);
    expect(result.calls.at(-1)).toMatchObject({ task: 'sink', status: 'error' });
  });

  it('retries a page with the task policies and keeps its merged request', async () => {
    let page2 = 0;
    const deps = fakeDeps((kind, config) => {
      if ((config.params as Record<string, unknown>).page === 2 && page2++ === 0) throw httpError(429);
      return pagedApi(kind, config);
    });
    const step = `
      - step: fetch_all
        tool:
          kind: http
          url: "{{ api_url }}"
          params: { page: 1 }
          spec:
            policy:
              rules:
                - when: "{{ output.error.kind == 'rate_limit' }}"
                  then: { do: retry, attempts: 3, backoff: fixed, delay: 0.25 }
        retry:
          - when: "{{ response.paging.hasMore }}"
            then:
              next_call: { params: { page: "{{ response.paging.page + 1 }}" } }
              collect: { path: items }
      `;
    const result = okResult(await runYaml(step, deps));
    expect(deps.calls.map((c) => (c.config.params as Record<string, unknown>).page)).toEqual([1, 2, 2, 3]);
    expect(deps.sleeps).toEqual([250]);
    expect(result.result).toMatchObject({ page_count: 3, data: [10, 11, 20, 21, 30, 31] });
    // Three pages, the second retried once: four calls, folded into one record.
    expect(result.calls.map((c) => c.attempts)).toEqual([4]);
  });

  it('fails the step when a later page fails', async () => {
    const deps = fakeDeps((kind, config) => {
      if ((config.params as Record<string, unknown>).page === 2) throw httpError(500);
      return pagedApi(kind, config);
    });
    const result = errorResult(await runYaml(paginate(`next_call: { params: { page: "{{ response.paging.page + 1 }}" } }`), deps));
    expect(result.error).toMatchObject({ kind: 'server_error', status: 500 });
  });

  it('stops when the task policies swallow an error; that call is not a page', async () => {
    const deps = fakeDeps((kind, config) => {
      if ((config.params as Record<string, unknown>).page === 2) throw httpError(404);
      return pagedApi(kind, config);
    });
    const step = `
      - step: fetch_all
        tool:
          kind: http
          url: x
          params: { page: 1 }
          spec: { policy: { rules: [ { when: "{{ output.http.status == 404 }}", then: { do: continue } } ] } }
        retry:
          - when: "{{ response.paging.hasMore }}"
            then: { next_call: { params: { page: "{{ response.paging.page + 1 }}" } }, collect: { path: items } }
      `;
    const { result } = okResult(await runYaml(step, deps));
    expect(result).toMatchObject({ data: [10, 11], page_count: 1, last: { status: 'error', error: { status: 404 } } });
  });

  it('collects nothing when the first call ends in a break', async () => {
    const deps = fakeDeps(() => rows([]));
    const step = `
      - step: claim
        tool:
          kind: postgres
          auth: pg
          query: select
          spec: { policy: { rules: [ { when: "{{ output.data.row_count == 0 }}", then: { do: break } } ] } }
        retry:
          - when: "{{ response.row_count > 0 }}"
            then: { next_call: { query: again }, collect: { strategy: replace } }
      `;
    const { result } = okResult(await runYaml(step, deps));
    expect(result).toEqual({ data: null, pages: null, page_count: 0, last: rows([]) });
  });

  it('reads a non-HTTP raw result as the response (postgres rows)', async () => {
    let call = 0;
    const deps = fakeDeps(() => (++call < 3 ? rows([{ id: call }, { id: call + 100 }]) : rows([{ id: 999 }])));
    const step = `
      - step: scan
        tool: { kind: postgres, auth: pg, query: "select after {{ input.cursor | default(0) }}" }
        retry:
          - when: "{{ response.row_count == 2 }}"
            then:
              next_call: { query: "select after {{ response.rows[-1].id }}" }
              collect: { path: rows }
      `;
    const { result } = okResult(await runYaml(step, deps));
    expect(deps.calls.map((c) => c.config.query)).toEqual(['select after 0', 'select after 101', 'select after 102']);
    expect(result).toMatchObject({ page_count: 3, data: [{ id: 1 }, { id: 101 }, { id: 2 }, { id: 102 }, { id: 999 }] });
  });

  it('fails with kind template when next_call cannot render', async () => {
    const deps = fakeDeps(pagedApi);
    const result = errorResult(
      await runYaml(paginate(`next_call: { params: { page: "{{ ('p' ~ response.paging.page) | fromjson }}" } }`), deps),
    );
    expect(result.error.kind).toBe('template');
    expect(deps.calls).toHaveLength(1);
  });

  it('fails when a success-side policy decides fail', async () => {
    const step = stepOf(`- step: s\n  tool: { kind: noop }`);
    const failOnSuccess: Policy = { when: true, on: 'success', action: { do: 'fail' }, set: [] };
    const result = errorResult(
      await runStepCall(
        {
          stepName: 's',
          tool: step.tool!,
          stepInput: {},
          retry: [failOnSuccess],
          scope: defaultScope(),
          signal: new AbortController().signal,
        },
        fakeDeps(() => ({})),
      ),
    );
    expect(result.error).toMatchObject({ kind: 'code', code: 'policy_fail' });
  });
});
