import { CallError } from '../model';
import { CALL_MS, defaultScope, errorResult, fakeDeps, http, httpError, okResult, rows, runYaml } from './testing/fake-deps';

describe('runStepCall: a single tool', () => {
  it('renders config and input (task input over step input) and returns the raw result', async () => {
    const deps = fakeDeps(() => http({ items: [1, 2] }));
    const result = okResult(
      await runYaml(
        `
        - step: fetch
          input: { limit: "{{ page_size }}", who: step }
          tool:
            kind: http
            url: "{{ api_url }}/items"
            params: { limit: "{{ input.limit }}", exec: "{{ execution_id }}" }
            input: { who: task }
        `,
        deps,
      ),
    );
    expect(deps.calls).toEqual([
      {
        kind: 'http',
        config: {
          url: 'http://api.test/items',
          params: { limit: 2, exec: '42' },
          input: { limit: 2, who: 'task' },
        },
      },
    ]);
    expect(result.result).toEqual(http({ items: [1, 2] }));
    expect(result.calls).toEqual([{ task: 'fetch', attempts: 1, durationMs: CALL_MS, status: 'ok' }]);
    expect(result.ctx).toEqual({});
    expect(result.iter).toEqual({});
  });

  it('fails with the tool error when no policy handles it', async () => {
    const deps = fakeDeps(() => {
      throw httpError(404);
    });
    const result = errorResult(await runYaml(`- step: get\n  tool: { kind: http, url: "{{ api_url }}" }`, deps));
    expect(result.error).toMatchObject({ kind: 'not_found', status: 404, retryable: false });
    expect(result.calls).toEqual([{ task: 'get', attempts: 1, durationMs: CALL_MS, status: 'error', error: result.error }]);
  });

  it('classifies a thrown non-CallError as internal', async () => {
    const deps = fakeDeps(() => {
      throw new Error('boom');
    });
    const result = errorResult(await runYaml(`- step: s\n  tool: { kind: noop }`, deps));
    expect(result.error).toMatchObject({ kind: 'internal', message: 'boom', retryable: false });
  });

  it('does not run error-side step retries in process (the scheduler does, durably)', async () => {
    const deps = fakeDeps(() => {
      throw httpError(503);
    });
    const result = errorResult(
      await runYaml(
        `
        - step: s
          tool: { kind: http, url: "{{ api_url }}" }
          retry:
            - when: "{{ error.status == 503 }}"
              then: { max_attempts: 5 }
        `,
        deps,
      ),
    );
    expect(result.error.status).toBe(503);
    expect(deps.calls).toHaveLength(1);
    expect(deps.sleeps).toEqual([]);
  });

  it('runs the step rule policies (do:) after the task, handing an earlier error-side match to the scheduler', async () => {
    const script = (status: number) => () => {
      throw httpError(status);
    };
    const yaml = `
      - step: s
        tool: { kind: http, url: "{{ api_url }}" }
        retry:
          - when: "{{ error.status == 503 }}"
            then: { max_attempts: 5 }
          - when: "{{ output.status == 'error' }}"
            then: { do: continue, set: { ctx.skipped: true } }
      `;
    const handedOff = errorResult(await runYaml(yaml, fakeDeps(script(503))));
    expect(handedOff.error.status).toBe(503);
    expect(handedOff.ctx).toEqual({});
    const swallowed = okResult(await runYaml(yaml, fakeDeps(script(400))));
    expect(swallowed.ctx).toEqual({ skipped: true });
    expect(swallowed.result).toMatchObject({ status: 'error', error: { kind: 'client_error', status: 400 } });
  });
});

describe('runStepCall: pipelines', () => {
  const pipeline = `
    - step: fetch_page
      tool:
        - name: fetch
          kind: http
          url: "{{ api_url }}/page"
          set: { fetch_result: "{{ output }}" }
        - name: transform
          kind: python
          code: "result = {}"
          input:
            body: "{{ fetch_result.data }}"
            sibling: "{{ fetch.status_code }}"
            prev: "{{ _prev.data.n }}"
            via_results: "{{ results.fetch.data.n }}"
            attempt: "{{ _attempt }}"
          set: { transformed: "{{ output }}" }
        - name: check
          kind: python
          code: "result = {}"
          input: { count: "{{ transformed.count }}", has_more: "{{ transform.count > 1 }}" }
    `;

  it('passes data along: task-level set of {{ output }}, sibling names, _prev and results.<task>', async () => {
    const deps = fakeDeps((kind, config) => {
      if (kind === 'http') return http({ n: 3 });
      if (config.code === 'result = {}' && (config.input as Record<string, unknown>).body !== undefined)
        return { count: 3, status: 'transformed' };
      return { has_more: true, count: 99 };
    });
    okResult(await runYaml(pipeline, deps));
    expect(deps.calls[1]?.config.input).toEqual({ body: { n: 3 }, sibling: 200, prev: 3, via_results: 3, attempt: 1 });
    expect(deps.calls[2]?.config.input).toEqual({ count: 3, has_more: true });
  });

  it('returns every task field (last wins), each task under its name, results and status ok', async () => {
    const deps = fakeDeps((kind, _config, index) => {
      if (kind === 'http') return http({ n: 3 });
      return index === 1 ? { count: 3, status: 'transformed', shared: 'transform' } : { has_more: true, shared: 'check' };
    });
    const { result } = okResult(await runYaml(pipeline, deps));
    const fetch = http({ n: 3 });
    const transform = { count: 3, status: 'transformed', shared: 'transform' };
    const check = { has_more: true, shared: 'check' };
    expect(result).toEqual({
      ...fetch,
      count: 3,
      shared: 'check',
      has_more: true,
      fetch,
      transform,
      check,
      results: { fetch, transform, check },
      status: 'ok',
    });
  });

  it('stops at the first failing task: later tasks do not run', async () => {
    const deps = fakeDeps((kind) => {
      if (kind === 'http') throw httpError(401);
      return {};
    });
    const result = errorResult(await runYaml(pipeline, deps));
    expect(result.error.kind).toBe('auth');
    expect(deps.calls).toHaveLength(1);
    expect(result.calls.map((c) => c.task)).toEqual(['fetch']);
  });

  it('keeps non-object task results out of the merged fields', async () => {
    const deps = fakeDeps((_kind, _config, index) => (index === 0 ? [1, 2] : 'text'));
    const { result } = okResult(
      await runYaml(
        `
        - step: s
          tool:
            - { name: a, kind: noop }
            - { name: b, kind: noop }
        `,
        deps,
      ),
    );
    expect(result).toEqual({ a: [1, 2], b: 'text', results: { a: [1, 2], b: 'text' }, status: 'ok' });
  });
});

describe('runStepCall: task policies', () => {
  const retrying = (backoff: string) => `
    - step: s
      tool:
        kind: http
        url: "{{ api_url }}"
        spec:
          policy:
            rules:
              - when: "{{ output.error.retryable }}"
                then: { do: retry, attempts: 3, delay: 1.0${backoff} }
              - else: { then: { do: continue } }
    `;

  it.each([
    ['none (delay alone means no wait)', '', []],
    ['fixed', ', backoff: fixed', [1000, 1000]],
    ['linear', ', backoff: linear', [1000, 2000]],
    ['exponential', ', backoff: exponential', [1000, 2000]],
    ['exponential with jitter (random 0.5 -> factor 1.0)', ', backoff: exponential, jitter: true', [1000, 2000]],
  ])('retries with backoff %s, then succeeds', async (_name, backoff, waits) => {
    const deps = fakeDeps((_kind, _config, index) => {
      if (index < 2) throw httpError(500);
      return http({ ok: true });
    });
    const result = okResult(await runYaml(retrying(backoff), deps));
    expect(deps.sleeps).toEqual(waits);
    expect(result.result).toEqual(http({ ok: true }));
    const waited = (waits as number[]).reduce((a, b) => a + b, 0);
    expect(result.calls).toEqual([{ task: 's', attempts: 3, durationMs: 3 * CALL_MS + waited, status: 'ok' }]);
    expect(deps.calls.every((c) => c.config.url === 'http://api.test')).toBe(true);
  });

  it('waits at least the Retry-After of a 429', async () => {
    const deps = fakeDeps((_kind, _config, index) => {
      if (index === 0) throw new CallError({ kind: 'rate_limit', message: '429', retryable: true, status: 429, retry_after_ms: 1500 });
      return http({});
    });
    okResult(await runYaml(retrying(''), deps));
    expect(deps.sleeps).toEqual([1500]);
  });

  it('fails with the last error when the retries are used up', async () => {
    const deps = fakeDeps(() => {
      throw httpError(502);
    });
    const result = errorResult(await runYaml(retrying(', backoff: fixed'), deps));
    expect(result.error).toMatchObject({ kind: 'server_error', status: 502 });
    expect(deps.calls).toHaveLength(3);
    expect(result.calls).toEqual([expect.objectContaining({ attempts: 3, status: 'error' })]);
  });

  it('swallows an error with else: continue (skip pattern) and runs the next task', async () => {
    const deps = fakeDeps((kind) => {
      if (kind === 'python') throw new CallError({ kind: 'code', message: "KeyError: 'x'", retryable: false });
      return { done: true };
    });
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool:
            - name: transform_bad
              kind: python
              code: "result = broken"
              set: { transformed: "{{ output }}" }
              spec:
                policy:
                  rules:
                    - when: "{{ output.status == 'error' }}"
                      then: { do: continue, set: { iter.skipped: "{{ output.error.kind }}" } }
            - name: validate
              kind: noop
              input: { prev: "{{ transformed }}", prev_status: "{{ _prev.status }}" }
        `,
        deps,
      ),
    );
    expect(deps.calls[1]?.config.input).toEqual({ prev: null, prev_status: 'error' });
    expect(result.iter).toEqual({ skipped: 'code' });
    expect(result.calls.map((c) => c.status)).toEqual(['error', 'ok']);
    const { results } = result.result as { results: Record<string, unknown> };
    expect(results.transform_bad).toEqual({ status: 'error', error: { kind: 'code', message: "KeyError: 'x'", retryable: false } });
    expect(result.result).toMatchObject({ done: true, status: 'ok' });
  });

  it('fails a successful call when a rule says fail', async () => {
    const deps = fakeDeps(() => rows([]));
    const result = errorResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: postgres
            auth: pg
            query: select 1
            spec:
              policy:
                rules:
                  - when: "{{ output.data.row_count == 0 }}"
                    then: { do: fail, set: { ctx.empty: true } }
        `,
        deps,
      ),
    );
    expect(result.error).toMatchObject({ kind: 'code', code: 'policy_fail', retryable: false });
    expect(result.error.message).toContain('chose fail');
    expect(result.ctx).toEqual({ empty: true });
  });

  const drain = `
    - step: drain
      tool:
        - name: claim
          kind: postgres
          auth: pg
          command: "claim for {{ slot }} after {{ iter.last_id | default(0) }}"
          spec:
            policy:
              rules:
                - when: "{{ (output.data.row_count | default(0) | int) == 0 }}"
                  then: { do: break }
                - else:
                    then:
                      do: continue
                      set: { iter.last_id: "{{ output.data.rows[0].id }}", iter.claimed: "{{ (iter.claimed | default(0)) + 1 }}" }
        - name: save
          kind: postgres
          auth: pg
          command: "save {{ iter.last_id }}"
          spec:
            policy:
              rules:
                - when: "{{ output.status == 'error' }}"
                  then: { do: fail }
                - else: { then: { do: jump, to: claim } }
        - name: never
          kind: noop
    `;

  it('drains with jump and ends with break on an empty claim', async () => {
    let claims = 0;
    const deps = fakeDeps((_kind, config) => {
      if (String(config.command).startsWith('claim')) {
        claims += 1;
        return claims <= 3 ? rows([{ id: claims * 10 }]) : rows([]);
      }
      return { row_count: 1 };
    });
    const result = okResult(await runYaml(drain, deps, { ...defaultScope(), slot: 7, iter: { slot: 7 } }));
    expect(deps.calls.map((c) => c.config.command)).toEqual([
      'claim for 7 after 0',
      'save 10',
      'claim for 7 after 10',
      'save 20',
      'claim for 7 after 20',
      'save 30',
      'claim for 7 after 30',
    ]);
    expect(result.iter).toEqual({ slot: 7, last_id: 30, claimed: 3 });
    expect(result.calls).toHaveLength(7);
    expect((result.result as Record<string, unknown>).results).toEqual({ save: { row_count: 1 }, claim: rows([]) });
  });

  it('bounds jump loops by maxTaskRuns', async () => {
    const deps = fakeDeps(() => rows([{ id: 1 }]), { maxTaskRuns: 5 });
    const result = errorResult(await runYaml(drain, deps, { ...defaultScope(), slot: 1 }));
    expect(result.error.kind).toBe('internal');
    expect(result.error.message).toContain('5');
    expect(deps.calls).toHaveLength(5);
  });

  it('jumps to previous and to a templated target; an unknown target is an internal error', async () => {
    const jumpTo = (to: string) => `
      - step: s
        tool:
          - { name: a, kind: noop }
          - name: b
            kind: noop
            spec:
              policy:
                rules:
                  - when: "{{ iter.n | default(0) < 2 }}"
                    then: { do: jump, to: "${to}", set: { iter.n: "{{ iter.n | default(0) + 1 }}" } }
    `;
    const previous = fakeDeps(() => ({}));
    okResult(await runYaml(jumpTo('previous'), previous));
    expect(previous.calls).toHaveLength(6);
    const templated = fakeDeps(() => ({}));
    okResult(await runYaml(jumpTo('{{ ctx.target }}'), templated, { ...defaultScope(), ctx: { target: 'b' } }));
    expect(templated.calls).toHaveLength(4);
    const unknown = errorResult(
      await runYaml(
        jumpTo('{{ ctx.target }}'),
        fakeDeps(() => ({})),
        { ctx: { target: 'zzz' } },
      ),
    );
    expect(unknown.error).toMatchObject({ kind: 'internal', message: 'jump target "zzz" is not a task of this pipeline' });
    const broken = errorResult(
      await runYaml(
        jumpTo('{{ ctx.target | fromjson }}'),
        fakeDeps(() => ({})),
        { ctx: { target: '{' } },
      ),
    );
    expect(broken.error.kind).toBe('template');
  });
});

describe('runStepCall: set scopes', () => {
  it('writes ctx, iter and step with native types; later tasks read ctx.x and bare x', async () => {
    const deps = fakeDeps((_kind, _config, index) => (index === 0 ? { counter: 5, list: [1, { a: 2 }], flag: true, cfg: { t: 3 } } : {}));
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool:
            - name: produce
              kind: python
              code: "result = {}"
              spec:
                policy:
                  rules:
                    - else:
                        then:
                          do: continue
                          set:
                            ctx.counter: "{{ output.data.counter }}"
                            ctx.list: "{{ output.data.list }}"
                            ctx.cfg.timeout: "{{ output.data.cfg.t }}"
                            flag: "{{ output.data.flag }}"
                            iter.page: "{{ output.data.counter + 1 }}"
                            step.extra: "{{ output.data.list | length }}"
                            ctx.literal: 200
            - name: consume
              kind: noop
              input:
                c: "{{ ctx.counter }}"
                bare: "{{ counter }}"
                list: "{{ list }}"
                cfg: "{{ cfg }}"
                flag: "{{ ctx.flag }}"
                page: "{{ iter.page }}"
        `,
        deps,
        { ...defaultScope(), ctx: { counter: 1, cfg: { retries: 2 } }, counter: 1 },
      ),
    );
    expect(deps.calls[1]?.config.input).toEqual({
      c: 5,
      bare: 5,
      list: [1, { a: 2 }],
      cfg: { retries: 2, timeout: 3 },
      flag: true,
      page: 6,
    });
    expect(result.ctx).toEqual({ counter: 5, list: [1, { a: 2 }], 'cfg.timeout': 3, flag: true, literal: 200 });
    expect(result.iter).toEqual({ page: 6 });
    expect(result.result).toMatchObject({ extra: 2, status: 'ok' });
  });

  it('renders a set block against one scope, and an overwritten ctx key moves last', async () => {
    const deps = fakeDeps(() => ({}));
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool:
            - name: first
              kind: noop
              spec:
                policy:
                  rules:
                    - else:
                        then:
                          do: continue
                          set: { ctx.a: 1, ctx.b: "{{ ctx.a | default('unset') }}", ctx.c: 3 }
            - name: second
              kind: noop
              spec: { policy: { rules: [ { else: { do: continue, set: { ctx.a: "{{ ctx.a + 8 }}" } } } ] } }
        `,
        deps,
        { ctx: {} },
      ),
    );
    expect(result.ctx).toEqual({ b: 'unset', c: 3, a: 9 });
    expect(Object.keys(result.ctx)).toEqual(['b', 'c', 'a']);
  });

  it('puts step.* writes on a non-object result under data', async () => {
    const deps = fakeDeps(() => [1, 2, 3]);
    const { result } = okResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: python
            code: "result = [1, 2, 3]"
            spec:
              policy:
                rules:
                  - else: { then: { do: continue, set: { step.count: "{{ output.data | length }}" } } }
        `,
        deps,
      ),
    );
    expect(result).toEqual({ data: [1, 2, 3], count: 3 });
  });

  it('refuses a set key that reaches a prototype', async () => {
    const deps = fakeDeps(() => ({}));
    const result = errorResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: noop
            spec:
              policy:
                rules:
                  - else: { then: { do: continue, set: { ctx.__proto__.x: 1 } } }
        `,
        deps,
      ),
    );
    expect(result.error).toMatchObject({ kind: 'internal', message: 'refusing to set "__proto__.x"' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('applies a task-level set with output = the raw result, also into ctx', async () => {
    const deps = fakeDeps(() => http({ total: 7 }));
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool:
            - name: fetch
              kind: http
              url: "{{ api_url }}"
              set: { ctx.total: "{{ output.data.total }}", raw_status: "{{ output.status_code }}" }
            - name: use
              kind: noop
              input: { status: "{{ raw_status }}", total: "{{ total }}" }
        `,
        deps,
      ),
    );
    expect(result.ctx).toEqual({ total: 7 });
    expect(deps.calls[1]?.config.input).toEqual({ status: 200, total: 7 });
  });
});

describe('runStepCall: template errors', () => {
  it('fails the step on a member of an undefined name, with the expression and the name (Jinja2)', async () => {
    const deps = fakeDeps(() => ({}));
    const result = errorResult(await runYaml(`- step: s\n  tool: { kind: noop, input: { v: "{{ nothing.here.at_all }}" } }`, deps));
    expect(result.error).toMatchObject({
      kind: 'template',
      code: 'template_undefined',
      retryable: false,
      expression: '{{ nothing.here.at_all }}',
    });
    expect(result.error.message).toContain("'nothing' is undefined");
    expect(deps.calls).toHaveLength(0);
  });

  it('renders an undefined value as nothing: null alone, empty in text', async () => {
    const deps = fakeDeps(() => ({}));
    okResult(await runYaml(`- step: s\n  tool: { kind: noop, input: { alone: "{{ nothing }}", text: "[{{ nothing }}]" } }`, deps));
    expect(deps.calls[0]?.config.input).toEqual({ alone: null, text: '[]' });
  });

  it("reads a task's own result by its name in its policy set (the call that just finished)", async () => {
    let page = 0;
    const deps = fakeDeps(() => ({ total: (page += 1) * 10 }));
    const result = okResult(
      await runYaml(
        `
        - step: progress
          tool:
            kind: python
            code: x
            spec:
              policy:
                rules:
                  - else: { then: { do: continue, set: { ctx.total: "{{ progress.total }}" } } }
        `,
        deps,
      ),
    );
    expect(result.ctx).toEqual({ total: 10 });
  });

  it('turns a render error into a call error of kind template (no call is made)', async () => {
    const deps = fakeDeps(() => ({}));
    const result = errorResult(await runYaml(`- step: s\n  tool: { kind: http, url: "{{ api_url | fromjson }}" }`, deps));
    expect(result.error).toMatchObject({ kind: 'template', retryable: false });
    expect(result.error.message).toContain('{{ api_url | fromjson }}');
    expect(result.error.message).toContain('invalid JSON');
    expect(deps.calls).toHaveLength(0);
    expect(result.calls).toEqual([expect.objectContaining({ attempts: 1, status: 'error' })]);
  });

  it('sends a template error through the policies, and a retry renders again', async () => {
    const deps = fakeDeps(() => ({ ok: 1 }));
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: noop
            input: { v: "{{ ('{' if _attempt == 1 else '{\\"a\\": 1}') | fromjson }}" }
            spec:
              policy:
                rules:
                  - when: "{{ output.error.kind == 'template' }}"
                    then: { do: retry, attempts: 2 }
        `,
        deps,
      ),
    );
    expect(deps.calls).toHaveLength(1);
    expect(deps.calls[0]?.config.input).toEqual({ v: { a: 1 } });
    expect(result.calls).toEqual([expect.objectContaining({ attempts: 2, status: 'ok' })]);
  });

  it('fails with kind template when a policy condition or a set cannot render', async () => {
    const when = errorResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: noop
            spec: { policy: { rules: [ { when: "{{ output.data | fromjson }}", then: { do: continue } } ] } }
        `,
        fakeDeps(() => '{'),
      ),
    );
    expect(when.error.kind).toBe('template');
    const taskSet = errorResult(
      await runYaml(
        `- step: s\n  tool: [ { name: a, kind: noop, set: { x: "{{ output | fromjson }}" } } ]`,
        fakeDeps(() => '{'),
      ),
    );
    expect(taskSet.error.kind).toBe('template');
  });
});

describe('runStepCall: cancellation', () => {
  const neverSettles = () => new Promise(() => undefined);

  it('stops promptly when the signal aborts during a call, even if the tool ignores it', async () => {
    const controller = new AbortController();
    const deps = fakeDeps(() => {
      setTimeout(() => controller.abort(), 1);
      return neverSettles();
    });
    const result = errorResult(await runYaml(`- step: s\n  tool: { kind: noop }`, deps, {}, controller.signal));
    expect(result.error).toEqual({ kind: 'cancelled', message: 'cancelled', retryable: false });
    expect(result.calls).toEqual([expect.objectContaining({ status: 'error', error: result.error })]);
  });

  it('stops during a backoff wait and before the next task', async () => {
    const controller = new AbortController();
    const deps = fakeDeps(() => {
      throw httpError(500);
    });
    deps.sleep = () => {
      controller.abort(new Error('execution cancelled'));
      return neverSettles() as Promise<void>;
    };
    const result = errorResult(
      await runYaml(
        `
        - step: s
          tool:
            kind: http
            url: x
            spec: { policy: { rules: [ { when: true, then: { do: retry, attempts: 3, backoff: fixed } } ] } }
        `,
        deps,
        {},
        controller.signal,
      ),
    );
    expect(result.error).toEqual({ kind: 'cancelled', message: 'cancelled: execution cancelled', retryable: false });
    expect(deps.calls).toHaveLength(1);
  });

  it('runs nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort('shutdown');
    const deps = fakeDeps(() => ({}));
    const result = errorResult(await runYaml(`- step: s\n  tool: [ { name: a, kind: noop } ]`, deps, {}, controller.signal));
    expect(result.error).toEqual({ kind: 'cancelled', message: 'cancelled: shutdown', retryable: false });
    expect(deps.calls).toHaveLength(0);
  });

  it('treats a tool rejecting after the abort as cancelled, not as its error', async () => {
    const controller = new AbortController();
    const deps = fakeDeps(() => {
      controller.abort();
      throw httpError(500);
    });
    const result = errorResult(await runYaml(`- step: s\n  tool: { kind: noop }`, deps, {}, controller.signal));
    expect(result.error.kind).toBe('cancelled');
  });
});

describe('runStepCall: a step with no task', () => {
  it('is an internal error', async () => {
    const result = errorResult(
      await (
        await import('./run-step-call')
      ).runStepCall(
        {
          stepName: 'empty',
          tool: { tasks: [], pipeline: true },
          stepInput: {},
          retry: [],
          scope: {},
          signal: new AbortController().signal,
        },
        fakeDeps(() => ({})),
      ),
    );
    expect(result.error).toMatchObject({ kind: 'internal' });
  });
});

describe('runStepCall: rule policies and continuation together', () => {
  it('lends the step rules to the task and still paginates on success', async () => {
    const deps = fakeDeps((_kind, config) => {
      const page = Number((config.params as Record<string, unknown>).page);
      if (page === 2) throw httpError(400);
      return http({ items: [page], next: page + 1 });
    });
    const result = okResult(
      await runYaml(
        `
        - step: s
          tool: { kind: http, url: x, params: { page: 1 } }
          retry:
            - when: "{{ output.status == 'error' }}"
              then: { do: continue, set: { ctx.stopped_at: "{{ output.error.status }}" } }
            - when: "{{ response.next < 5 }}"
              then: { next_call: { params: { page: "{{ response.next }}" } }, collect: { path: items } }
        `,
        deps,
      ),
    );
    expect(result.ctx).toEqual({ stopped_at: 400 });
    expect(result.result).toMatchObject({ data: [1], page_count: 1, last: { status: 'error' } });
  });
});
