import type { ToolContext } from '../tool';

/** A ToolContext for tests: credentials by name from `credentials`, anything else overridable. */
export function testToolContext(
  credentials: Record<string, Record<string, unknown>> = {},
  overrides: Partial<ToolContext> = {},
): ToolContext {
  return {
    signal: new AbortController().signal,
    executionId: '1',
    pythonEnabled: true,
    resolveCredential: async (name) => {
      const data = credentials[name];
      if (!data) throw new Error(`no credential ${name}`);
      return data;
    },
    ...overrides,
  };
}
