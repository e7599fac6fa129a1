/**
 * bench:executions: this runtime alone on the bench:peers "many short
 * executions" workload (N executions of a 3-step chain started at once), with
 * the breakdown that says where the per-step cost goes: statements and
 * transactions per step (Database.counts), rows fetched and returned per step
 * (pg_stat_database, this database's counters, other sessions on it included), the tables and indexes that read them
 * (pg_stat_user_tables / pg_stat_user_indexes) and the SQL statements that
 * took the most time. A quick loop for hot-path work; bench:peers is the
 * side-by-side figure. Prints the breakdown and writes
 * bench/results/executions.{json,md}.
 *
 *   npm run bench:executions -- [--count 1000] [--steps 3]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@noetl/config';
import { migrate } from '@noetl/storage';
import { startAndAwait } from '../await-executions';
import { dropDatabase, openBenchServer, recreateDatabase } from '../bench-database';
import { startBenchEngine } from '../bench-engine';
import { chainPlaybook } from '../chain-playbook';
import { DATABASE_FETCHED, DATABASE_RETURNED, tableReads, topReads } from './table-reads';
import { StatementTimes } from './statement-times';

const DATABASE = 'noetl_bench_executions';
const TIMEOUT_MS = 15 * 60_000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { count: { type: 'string', default: '1000' }, steps: { type: 'string', default: '3' } },
  });
  const count = Number(values.count);
  const steps = Number(values.steps);
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const server = await openBenchServer(config);
  const url = await recreateDatabase(server.url, DATABASE);
  const statementTimes = StatementTimes.install();
  try {
    await migrate(url, 'up');
    const booted = await startBenchEngine(config, url, config.worker.concurrency);
    const path = `bench/executions/chain-${steps}`;
    try {
      await booted.engine.own.catalog.register(chainPlaybook(steps, path));
      const tablesBefore = await tableReads(url);
      const countsBefore = { ...booted.database.counts };
      statementTimes.reset();
      const cpuBefore = process.cpuUsage();
      const began = performance.now();
      await startAndAwait(booted.engine, config.tenancy.tenantId, TIMEOUT_MS, async () =>
        (await Promise.all(Array.from({ length: count }, () => booted.engine.own.executions.start({ path })))).map(
          (execution) => execution.execution_id,
        ),
      );
      const wallMs = performance.now() - began;
      const cpu = process.cpuUsage(cpuBefore);
      const tablesAfter = await tableReads(url);
      const grew = (name: string): number => (tablesAfter.get(name)?.rows ?? 0) - (tablesBefore.get(name)?.rows ?? 0);
      const stepsRun = count * steps;
      const perStep = (value: number): number => Math.round((value / stepsRun) * 10) / 10;
      const figures = {
        executions: count,
        steps_per_execution: steps,
        wall_s: Math.round(wallMs / 100) / 10,
        executions_per_s: Math.round((count / wallMs) * 1000 * 10) / 10,
        per_step: {
          statements: perStep(booted.database.counts.statements - countsBefore.statements),
          transactions: perStep(booted.database.counts.transactions - countsBefore.transactions),
          fetched: perStep(grew(DATABASE_FETCHED)),
          returned: perStep(grew(DATABASE_RETURNED)),
          engine_cpu_ms: perStep((cpu.user + cpu.system) / 1000),
        },
      };
      const reads = topReads(tablesBefore, tablesAfter, stepsRun);
      const statements = statementTimes.top(stepsRun, 15);
      const result = {
        benchmark: 'executions',
        date: new Date().toISOString(),
        ...figures,
        reads_per_step: reads,
        statements_by_time: statements,
      };
      const report = [
        `# bench:executions, ${new Date().toISOString()}`,
        '',
        '```json',
        JSON.stringify(figures, null, 2),
        '```',
        '',
        'Reads per step by table / index (scans, rows):',
        '',
        ...reads.map((line) => `- ${line}`),
        '',
        'Statements by total time (calls per step, ms total, rows returned per call; times overlap across connections):',
        '',
        ...statements.map((line) => `- \`${line}\``),
        '',
      ].join('\n');
      const dir = join(process.cwd(), 'bench', 'results');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'executions.json'), `${JSON.stringify(result, null, 2)}\n`);
      await writeFile(join(dir, 'executions.md'), report);
      process.stdout.write(report);
    } finally {
      await booted.close();
    }
  } finally {
    statementTimes.uninstall();
    await dropDatabase(server.url, DATABASE);
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:executions: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
