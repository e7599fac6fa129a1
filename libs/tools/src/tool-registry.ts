import { CallError } from '@noetl/dsl';
import type { Tool } from './tool';

/** Tools by kind (and alias). Kinds are matched case-insensitively. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** Registers `tool` under its kind and each alias; a later registration of the same name wins. */
  register(tool: Tool, aliases: readonly string[] = []): void {
    for (const name of [tool.kind, ...aliases]) this.tools.set(name.toLowerCase(), tool);
  }

  has(kind: string): boolean {
    return this.tools.has(kind.toLowerCase());
  }

  /** @throws CallError kind `internal` for an unknown kind. */
  get(kind: string): Tool {
    const tool = this.tools.get(kind.toLowerCase());
    if (!tool) {
      throw new CallError({ kind: 'internal', message: `unknown tool kind "${kind}"`, retryable: false, code: 'UNKNOWN_TOOL' });
    }
    return tool;
  }

  /** Every registered name (kinds and aliases), sorted. */
  kinds(): string[] {
    return [...this.tools.keys()].sort();
  }

  /** Closes every distinct tool once (pools, agents); never throws. */
  async close(): Promise<void> {
    const distinct = new Set(this.tools.values());
    await Promise.allSettled([...distinct].map((tool) => tool.close?.()));
  }
}
