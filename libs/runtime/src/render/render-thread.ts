/* eslint-disable @typescript-eslint/no-require-imports -- see the note on renderThreadMain */
import type { RenderReply, RenderRequest, TemplateLimits } from '@noetl/dsl';

/** What a render thread is started with. */
export interface RenderThreadData {
  /** The absolute path of @noetl/dsl's render-request module (RENDER_REQUEST_MODULE). */
  module: string;
  /** The limits of the process's engine: a thread renders with the full budget. */
  limits: TemplateLimits;
}

export interface RenderThreadRequest {
  id: number;
  request: RenderRequest;
}

export interface RenderThreadReply {
  id: number;
  reply: RenderReply;
}

/**
 * The body of a render thread (`worker_threads`): an expression engine with
 * the process's limits answering one render at a time (a render is
 * synchronous; the thread's event loop queues the rest). Like the
 * JavaScript sandbox's thread it is started from this function's source
 * (`eval: true`), the same code compiled (dist/) or transpiled by the test
 * runner, so it refers to nothing outside its body but types and requires
 * the engine by the path in `workerData`. Under the test runner that path
 * is TypeScript: the thread then transpiles what it requires with the
 * runner's own transpiler (@swc/core, a dev dependency).
 */
export function renderThreadMain(): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { randomUUID } = require('node:crypto') as typeof import('node:crypto');
  const data = workerData as RenderThreadData;
  if (data.module.endsWith('.ts')) {
    const { readFileSync } = require('node:fs') as typeof import('node:fs');
    const swc = require('@swc/core') as { transformSync(code: string, options: object): { code: string } };
    const extensions = (require('node:module') as { _extensions: Record<string, unknown> })._extensions;
    extensions['.ts'] = (module: { _compile(code: string, filename: string): void }, filename: string): void => {
      const options = { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } };
      module._compile(swc.transformSync(readFileSync(filename, 'utf8'), options).code, filename);
    };
  }
  const dsl = require(data.module) as Pick<typeof import('@noetl/dsl'), 'ExpressionEngine' | 'answerRenderRequest'>;
  const engine = new dsl.ExpressionEngine({ now: () => new Date(), uuid: () => randomUUID() }, { limits: data.limits });
  const port = parentPort!;
  port.on('message', ({ id, request }: RenderThreadRequest) => {
    const reply = dsl.answerRenderRequest(engine, request);
    try {
      port.postMessage({ id, reply } satisfies RenderThreadReply);
    } catch (error) {
      port.postMessage({
        id,
        reply: { failure: `the rendered value cannot leave the render thread: ${String(error)}` },
      } satisfies RenderThreadReply);
    }
  });
}
