import { CallError } from '@noetl/dsl';
import { defaultTools } from './default-tools';
import { NoopTool } from './noop/noop.tool';
import type { Tool, ToolContext } from './tool';
import { ToolRegistry } from './tool-registry';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  executionId: '1',
  pythonEnabled: true,
  resolveCredential: async () => ({}),
};

describe('ToolRegistry', () => {
  it('finds a tool by kind or alias, case-insensitively', () => {
    const registry = new ToolRegistry();
    const tool: Tool = { kind: 'javascript', run: async () => 1 };
    registry.register(tool, ['js']);
    expect(registry.get('js')).toBe(tool);
    expect(registry.get('JavaScript')).toBe(tool);
    expect(registry.has('JS')).toBe(true);
    expect(registry.kinds()).toEqual(['javascript', 'js']);
  });

  it('throws an internal CallError for an unknown kind', () => {
    const registry = new ToolRegistry();
    expect(() => registry.get('duckdb')).toThrow(CallError);
    try {
      registry.get('duckdb');
    } catch (err) {
      expect((err as CallError).info).toMatchObject({ kind: 'internal', retryable: false, code: 'UNKNOWN_TOOL' });
      expect((err as CallError).info.message).toContain('duckdb');
    }
  });

  it('closes each distinct tool once, even when registered under aliases, and survives a failing close', async () => {
    const registry = new ToolRegistry();
    const close = jest.fn(async () => undefined);
    registry.register({ kind: 'a', run: async () => null, close }, ['b']);
    registry.register({ kind: 'c', run: async () => null, close: async () => Promise.reject(new Error('boom')) });
    await expect(registry.close()).resolves.toBeUndefined();
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('lets a later registration replace a kind', () => {
    const registry = new ToolRegistry();
    const second: Tool = { kind: 'http', run: async () => 2 };
    registry.register({ kind: 'http', run: async () => 1 });
    registry.register(second);
    expect(registry.get('http')).toBe(second);
  });
});

describe('defaultTools', () => {
  it('registers http, postgres, javascript (js), python and noop', async () => {
    const registry = defaultTools();
    expect(registry.kinds()).toEqual(['http', 'javascript', 'js', 'noop', 'postgres', 'python']);
    await registry.close();
  });
});

describe('NoopTool', () => {
  it('returns its input, or {}', async () => {
    const noop = new NoopTool();
    expect(await noop.run({}, ctx)).toEqual({});
    expect(await noop.run({ input: { a: 1 } }, ctx)).toEqual({ a: 1 });
  });
});
