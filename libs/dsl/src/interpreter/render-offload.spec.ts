import { stepResultView } from '../scope';
import { defaultScope, errorResult, fakeDeps, http, httpError, okResult, runYaml } from './testing/fake-deps';

/** 3 000 loop iterations: past an inline slice of 1 000 work units, far inside the full budget. */
const LOOP = '{% for i in range(3000) %}{% endfor %}';

const STEP = `
- step: fetch
  tool:
    kind: http
    url: "${LOOP}{{ api_url }}/{{ prior.data.id }}"
    params: { size: "{{ (range(3000) | length) + page_size }}", plain: "{{ page_size }}" }
    set: { ctx.seen: "${LOOP}{{ output.data.n }}" }
`;

describe("the interpreter's renders past the inline slice", () => {
  const scope = (): Record<string, unknown> => ({ ...defaultScope(), prior: stepResultView({ id: 7 }) });

  it('come out of the render thread as they do inline: config, input and set', async () => {
    const inline = fakeDeps(() => http({ n: 3 }));
    const sliced = fakeDeps(() => http({ n: 3 }), { inlineWork: 1000 });
    const expected = okResult(await runYaml(STEP, inline, scope()));
    const offloaded = okResult(await runYaml(STEP, sliced, scope()));
    expect(sliced.calls).toEqual(inline.calls);
    expect(sliced.calls[0]?.config).toMatchObject({ url: 'http://api.test/7', params: { size: 3002, plain: 2 } });
    expect(offloaded.ctx).toEqual(expected.ctx);
    expect(offloaded.ctx).toEqual({ seen: '3' });
    expect(inline.offloaded).toEqual([]);
    expect(sliced.offloaded.length).toBeGreaterThan(0);
  });

  it('fail the step with the template error the inline render gives', async () => {
    const failing = `- step: fetch\n  tool: { kind: http, url: "${LOOP}{{ nothing.here }}" }`;
    const inline = errorResult(
      await runYaml(
        failing,
        fakeDeps(() => http({})),
      ),
    );
    const sliced = fakeDeps(() => http({}), { inlineWork: 1000 });
    const offloaded = errorResult(await runYaml(failing, sliced));
    expect(sliced.offloaded).toHaveLength(1);
    expect(offloaded.error).toEqual(inline.error);
    expect(offloaded.error).toMatchObject({ kind: 'template', message: expect.stringContaining("'nothing' is undefined") });
  });

  it('decide a task policy whose condition is past the slice as inline: retried, then continued with its set', async () => {
    const yaml = `
- step: fetch
  tool:
    kind: http
    url: "{{ api_url }}"
    spec:
      policy:
        rules:
          - when: "${LOOP}{{ output.error.status == 503 and _attempt < 3 }}"
            then: { do: retry, attempts: 3, delay: 0.5 }
          - else: { then: { do: continue, set: { ctx.gave_up: "${LOOP}{{ _attempt }}" } } }
`;
    const script = () => {
      throw httpError(503);
    };
    const inline = fakeDeps(script);
    const sliced = fakeDeps(script, { inlineWork: 1000 });
    const expected = await runYaml(yaml, inline);
    const offloaded = await runYaml(yaml, sliced);
    expect(offloaded).toEqual(expected);
    expect(sliced.sleeps).toEqual(inline.sleeps);
    expect(sliced.calls).toHaveLength(3);
    expect(offloaded.ctx).toEqual({ gave_up: '3' });
    expect(sliced.offloaded.length).toBeGreaterThanOrEqual(3);
  });
});
