import { ExpressionEngine } from '../expressions';
import { answerRenderRequest, OffloadingRenderer } from '../render';
import { extendScope, RunState } from './run-state';
import { fakeDeps, okResult, runYaml } from './testing/fake-deps';
import { isRecord, withPath } from './write-path';

const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });
const renderer = new OffloadingRenderer(engine, { work: engine.limits.maxWork, ms: Infinity, clock: () => 0 }, async (request) =>
  answerRenderRequest(engine, request),
);

/** A scope whose step result is a getter, as the scheduler's buildScope makes it; counts reads. */
function lazyScope(): { scope: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const scope: Record<string, unknown> = { ctx: {} };
  Object.defineProperty(scope, 'big_step', {
    get: () => {
      reads += 1;
      return { rows: [1, 2, 3] };
    },
    enumerable: true,
    configurable: true,
  });
  Object.defineProperty(scope, 'hidden', { value: 'x', enumerable: false });
  return { scope, reads: () => reads };
}

describe('RunState', () => {
  it('leaves lazily resolved step results unread until a template reads them', async () => {
    const lazy = lazyScope();
    const deps = fakeDeps(() => ({}));
    okResult(await runYaml(`- step: s\n  tool: [ { name: a, kind: noop, input: { x: 1 } }, { name: b, kind: noop } ]`, deps, lazy.scope));
    expect(lazy.reads()).toBe(0);
    okResult(await runYaml(`- step: s\n  tool: { kind: noop, input: { n: "{{ big_step.rows | length }}" } }`, deps, lazy.scope));
    expect(lazy.reads()).toBe(1);
    expect(deps.calls.at(-1)?.config.input).toEqual({ n: 3 });
  });

  it('copies accessors as accessors and drops non-enumerable keys', () => {
    const lazy = lazyScope();
    const extended = extendScope(lazy.scope, { extra: 1 });
    expect(lazy.reads()).toBe(0);
    expect(Object.keys(extended)).toEqual(['ctx', 'big_step', 'extra']);
    expect(extended.big_step).toEqual({ rows: [1, 2, 3] });
    expect(lazy.reads()).toBe(1);
  });

  it('builds no scope for a call that renders and decides nothing (a static loop body)', async () => {
    let copies = 0;
    // Building a scope lists the keys of the one it extends.
    const scope = new Proxy({ ctx: {}, workload: { a: 1 } } as Record<string, unknown>, {
      ownKeys: (target) => {
        copies += 1;
        return Reflect.ownKeys(target);
      },
    });
    const deps = fakeDeps(() => ({ ok: true }));
    okResult(await runYaml(`- step: s\n  tool: { kind: http, url: "http://x/static", input: { a: 1 } }`, deps, scope));
    expect(deps.calls.at(-1)?.config).toEqual({ url: 'http://x/static', input: { a: 1 } });
    expect(copies).toBe(0);
    okResult(await runYaml(`- step: s\n  tool: { kind: http, url: "http://x/{{ workload.a }}" }`, deps, scope));
    expect(deps.calls.at(-1)?.config).toEqual({ url: 'http://x/1', input: {} });
    expect(copies).toBeGreaterThan(0);
  });

  it('keeps an own "__proto__" key of a scope or of what extends it as data', () => {
    const scope = JSON.parse('{"ctx": {}, "__proto__": {"polluted": 1}}') as Record<string, unknown>;
    const extended = extendScope(scope, JSON.parse('{"item": 1, "__proto__": {"polluted": 2}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(extended)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(extended, '__proto__')?.value).toEqual({ polluted: 2 });
    expect(Object.keys(extended)).toEqual(['ctx', '__proto__', 'item']);
  });

  it('mirrors ctx writes into vars when the scope has the alias, and keeps locals nested', async () => {
    const state = new RunState({ ctx: { a: 1 }, vars: { a: 1 } });
    await state.applySet(
      [
        { scope: 'ctx', key: 'a', value: 2 },
        { scope: 'local', key: 'tmp.x', value: '{{ ctx.a }}' },
      ],
      state.scope(),
      renderer,
    );
    const scope = state.scope();
    expect(scope.vars).toEqual({ a: 2 });
    expect(scope.a).toBe(2);
    expect(scope.tmp).toEqual({ x: 1 });
  });

  it('starts without ctx or iter when the scope has none', () => {
    const state = new RunState({ ctx: 'not a mapping' });
    expect(state.iter).toEqual({});
    expect(state.scope().ctx).toEqual({});
    expect(state.withStepWrites('r')).toBe('r');
  });
});

describe('withPath', () => {
  it('writes a copy, replacing a non-mapping on the way', () => {
    const target = { a: 1, b: { c: 2 } };
    expect(withPath(target, 'a.x', 3)).toEqual({ a: { x: 3 }, b: { c: 2 } });
    expect(withPath(target, 'b.d', 4)).toEqual({ a: 1, b: { c: 2, d: 4 } });
    expect(target).toEqual({ a: 1, b: { c: 2 } });
  });

  it('refuses empty and prototype-reaching segments', () => {
    expect(() => withPath({}, 'a..b', 1)).toThrow(RangeError);
    expect(() => withPath({}, 'constructor', 1)).toThrow('refusing to set "constructor"');
  });

  it('isRecord accepts plain and null-prototype objects only', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    expect(isRecord(new Date(0))).toBe(false);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
  });
});
