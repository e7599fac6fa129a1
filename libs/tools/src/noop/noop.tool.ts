import type { Tool, ToolContext } from '../tool';

/** Carries policies and ends branches: returns its `input`, or `{}`. */
export class NoopTool implements Tool {
  readonly kind = 'noop';

  async run(config: Record<string, unknown>, _ctx?: ToolContext): Promise<unknown> {
    return config.input ?? {};
  }
}
