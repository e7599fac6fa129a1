import { HttpTool, type HttpToolOptions } from './http/http.tool';
import { JavaScriptTool, type JavaScriptToolOptions } from './javascript/javascript.tool';
import { NoopTool } from './noop/noop.tool';
import { PostgresTool, type PostgresToolOptions } from './postgres/postgres.tool';
import { PythonTool, type PythonToolOptions } from './python/python.tool';
import { ToolRegistry } from './tool-registry';

export interface DefaultToolsOptions {
  http?: HttpToolOptions;
  postgres?: PostgresToolOptions;
  javascript?: JavaScriptToolOptions;
  python?: PythonToolOptions;
}

/** A registry with http, postgres, javascript (alias js), python and noop. `close()` it at shutdown. */
export function defaultTools(options: DefaultToolsOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(new HttpTool(options.http));
  registry.register(new PostgresTool(options.postgres));
  registry.register(new JavaScriptTool(options.javascript), ['js']);
  registry.register(new PythonTool(options.python));
  registry.register(new NoopTool());
  return registry;
}
