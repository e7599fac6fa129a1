import { readFileSync } from 'node:fs';
import type { NoetlConfig } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { DatabaseConnection } from '@noetl/platform';
import { Engine, RuntimeError, startTracing, stopTracing } from '@noetl/runtime';
import { cliLogger } from '../shared/cli-logger';
import type { CliOutput } from '../shared/cli-output';
import { printProblems } from '../shared/playbook-problems';
import { type OutputOptions, outputFormat } from '../shared/output-format';
import { printExecution } from '../shared/print-execution';
import { watchExecution } from '../shared/watch-execution';
import { validateFiles } from '../shared/validate-files';

export interface RunOptions extends OutputOptions {
  /** Deep-merged over the playbook's workload. */
  set?: JsonObject;
  timeoutMs?: number;
  /** Aborting stops the run: the execution is cancelled. */
  signal?: AbortSignal;
}

/**
 * `noetl run <file>`: the whole runtime in this process, no HTTP. Without
 * DATABASE_URL the ledger is the embedded PostgreSQL under NOETL_HOME. The
 * file is registered, executed with the `--set` payload and watched to its
 * end. Returns the exit code: 0 when the execution completed, else 1. The
 * engine and the database are stopped whatever happens, and the traces sent.
 */
export async function runPlaybook(file: string, options: RunOptions, output: CliOutput, config: NoetlConfig): Promise<number> {
  // Validate before starting a database: a typo is reported in milliseconds.
  if (validateFiles([file], output.err) > 0) return 1;
  const content = readFileSync(file, 'utf8');
  if (!config.tracing) return runInProcess(file, content, options, output, config);
  // With OTEL_* set, the run is a trace as on a server; its spans are sent before the command returns.
  await startTracing(config.tracing, 'noetl-run');
  try {
    return await runInProcess(file, content, options, output, config);
  } finally {
    await stopTracing();
  }
}

/** The engine on its database, with the file registered, executed and watched; both are stopped whatever happens. */
async function runInProcess(file: string, content: string, options: RunOptions, output: CliOutput, config: NoetlConfig): Promise<number> {
  const connection = await DatabaseConnection.open(config);
  try {
    const engine = await Engine.start({
      // One self-contained process: the in-process bus and control plane even when NATS_URL or NOETL_SERVER_URL is set.
      config: { ...config, nats: undefined, server: undefined },
      database: connection.database,
      roles: ['scheduler', 'worker'],
      logger: cliLogger(config, 'noetl-run'),
      // A one-shot: it neither applies the playbook's schedule nor fires the database's schedules.
      schedules: false,
    });
    try {
      return await execute(engine, file, content, options, output);
    } finally {
      await engine.stop();
    }
  } finally {
    await connection.onApplicationShutdown();
  }
}

async function execute(engine: Engine, file: string, content: string, options: RunOptions, output: CliOutput): Promise<number> {
  let catalogId: string;
  try {
    catalogId = (await engine.own.catalog.register(content, { schedule: false })).catalog_id;
  } catch (error) {
    const rejected = error instanceof RuntimeError && error.code === 'invalid_playbook';
    if (rejected && printProblems(file, error.details, output.err)) return 1;
    throw error;
  }
  const { execution_id: id } = await engine.own.executions.start({ catalog_id: catalogId, payload: options.set ?? {} });
  const end = await watchExecution(() => engine.own.executions.get(id), output, {
    quiet: options.quiet || outputFormat(options) !== 'table',
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if (end.reason !== 'terminal') {
    // Left running, the execution would resume the next time an engine starts on this database.
    const why = end.reason === 'timeout' ? `timed out after ${options.timeoutMs! / 1000} s` : 'interrupted';
    output.err(`execution ${id} ${why}; cancelling it`);
    await engine.own.executions.cancel(id, { reason: `noetl run ${why}`, by: 'noetl run' }).catch((error: unknown) => {
      // It may have ended meanwhile: then its own outcome is printed below.
      if (!(error instanceof RuntimeError && error.code === 'already_terminal')) throw error;
    });
  }
  return printExecution(end.reason === 'terminal' ? end.detail : await engine.own.executions.get(id), output, options);
}
