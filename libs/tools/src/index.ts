export type { OutputStream, StreamChunk, Tool, ToolContext } from './tool';
export { ToolRegistry } from './tool-registry';
export { defaultTools, type DefaultToolsOptions } from './default-tools';
export { HttpTool, type HttpToolOptions } from './http/http.tool';
export type { HttpResult } from './http/shape-http-response';
export { PostgresTool, type PostgresToolOptions } from './postgres/postgres.tool';
export { splitStatements } from './postgres/split-statements';
export { readDatabaseIdentity, type DatabaseIdentity, type ProtectedDatabase, type RowsOf } from './postgres/database-identity';
export type { StatementResult } from './postgres/shape-pg-result';
export { JavaScriptTool, type JavaScriptToolOptions } from './javascript/javascript.tool';
export { PythonTool, type PythonToolOptions } from './python/python.tool';
export {
  LEDGER_EXPOSED,
  ledgerExposureReason,
  ledgerLogins,
  passwordlessLogins,
  readSocketDirectories,
  type LedgerLogin,
} from './python/ledger-exposure';
export { pythonEnv } from './python/build-python-request';
export { PYTHON_DISABLED, PYTHON_NOT_FOUND } from './python/python-outcome';
export { NoopTool } from './noop/noop.tool';
export { SecretSet } from './shared/secret-set';
