/**
 * bench:peers (issue 12 item 1): this runtime next to DBOS Transact, graphile-worker and pg-boss
 * on the same PostgreSQL, interleaved, medians of the repetitions, for a
 * chain of steps, many short executions and a fan-out of no-op items. Each
 * system runs each workload in a child process of its own on a database of
 * its own, created before and dropped after; the transactions and rows per
 * step or item come from that database's pg_stat_database counters: what the
 * run child added less what an idle child (start and stop, no work) added. Writes bench/results/peers.{json,md}.
 *
 *   npm run bench:peers -- [--quick] [--reps 3]
 *
 * DATABASE_URL names the server; without it, the embedded PostgreSQL under
 * NOETL_HOME is used. The peers are bench/peers's own dependencies, installed
 * there on first use.
 */
import { execFileSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@noetl/config';
import { Client } from 'pg';
import { dropDatabase, openBenchServer, recreateDatabase } from '../bench-database';
import { countersOf, perUnit } from './pg-stats';
import { unitsOf, type RunReport, type Task, type Workload } from './protocol';
import { summarise, writeReport, type EntrantResult, type PeersReport, type RunResult, type WorkloadResult } from './report';
import { workloadsOf, entrantsOf, NOT_COMPARABLE, type Entrant, type Scale } from './plan';

const PEERS_DIR = join(process.cwd(), 'bench', 'peers');
const RUN_TIMEOUT_MS = 10 * 60_000;

function parseOptions(argv: string[]): { scale: Scale; reps: number } {
  const { values } = parseArgs({
    args: argv,
    options: { quick: { type: 'boolean', default: false }, reps: { type: 'string', default: '3' } },
  });
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${JSON.stringify(values.reps)}`);
  return { scale: values.quick ? 'quick' : 'full', reps };
}

/** The peers' packages, installed into bench/peers/node_modules (from its lockfile) when missing. */
function installPeers(): void {
  if (existsSync(join(PEERS_DIR, 'node_modules'))) return;
  process.stderr.write('bench:peers: installing the peers into bench/peers/node_modules\n');
  execFileSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

function commitOf(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Runs one task in a child process; the RunReport of a run, undefined for a prepare. */
function inChild(entrant: Entrant, task: Task): Promise<RunReport | undefined> {
  return new Promise((resolve, reject) => {
    const child = fork(entrant.script, [JSON.stringify(task)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let report: RunReport | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('message', (message) => (report = message as RunReport));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${entrant.name} ${task.phase} of ${JSON.stringify(task.workload)} exited ${code ?? signal}`));
      else if (task.phase === 'run' && !report) reject(new Error(`${entrant.name} ran ${JSON.stringify(task.workload)} without reporting`));
      else resolve(report);
    });
  });
}

/** One run of `workload` by `entrant` on a fresh database of its own, dropped afterwards. */
async function runOnce(
  serverUrl: string,
  stats: Client,
  entrant: Entrant,
  workload: Workload,
): Promise<RunResult & { version: string; shape: string }> {
  const database = `noetl_peers_${entrant.id.replace(/-/g, '_')}`;
  const databaseUrl = await recreateDatabase(serverUrl, database);
  try {
    const task = { databaseUrl, workload, ...(entrant.variant ? { variant: entrant.variant } : {}) };
    await inChild(entrant, { ...task, phase: 'prepare' });
    const before = await countersOf(stats, database);
    await inChild(entrant, { ...task, phase: 'idle' });
    const afterIdle = await countersOf(stats, database);
    const report = (await inChild(entrant, { ...task, phase: 'run' }))!;
    const afterRun = await countersOf(stats, database);
    const work = perUnit(before, afterIdle, afterRun, unitsOf(workload));
    return { wallMs: report.wallMs, maxRssKb: report.maxRssKb, perUnit: work, version: report.version, shape: report.shape };
  } finally {
    await dropDatabase(serverUrl, database);
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  // Read before the run: the checkout measured is the one built, whatever is edited meanwhile.
  const commit = commitOf();
  const options = parseOptions(process.argv.slice(2));
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  installPeers();
  const server = await openBenchServer(config);
  const stats = new Client({ connectionString: server.url, application_name: 'bench-peers' });
  await stats.connect();
  try {
    const plans = workloadsOf(options.scale).map((plan) => ({
      plan,
      entrants: entrantsOf(plan.workload, join(__dirname, 'systems', 'noetl.js'), join(PEERS_DIR, 'systems')),
      collected: new Map<string, { version: string; shape: string; runs: RunResult[] }>(),
    }));
    for (let rep = 0; rep < options.reps; rep++) {
      for (const { plan, entrants, collected } of plans) {
        const running = entrants.filter((entrant) => !entrant.skip && rep < (entrant.repetitions ?? options.reps));
        // Rotated each repetition: no system always runs first, on the coldest cache, or last.
        const order = running.map((_, i) => running[(i + rep) % running.length]!);
        for (const entrant of order) {
          const result = await runOnce(server.url, stats, entrant, plan.workload);
          const { version, shape, ...run } = result;
          const entry = collected.get(entrant.name) ?? { version, shape, runs: [] };
          entry.runs.push(run);
          collected.set(entrant.name, entry);
          process.stderr.write(
            `rep ${rep + 1}/${options.reps} ${plan.title}: ${entrant.name} ${Math.round(run.wallMs)} ms, ${Math.round(run.maxRssKb / 1024)} MB\n`,
          );
        }
      }
    }
    const workloads: WorkloadResult[] = plans.map(({ plan, entrants, collected }) => ({
      ...plan,
      entrants: summarise(
        plan.workload,
        entrants.map((entrant): Omit<EntrantResult, 'figure' | 'ratio' | 'per_unit' | 'peak_rss_mb'> => {
          const entry = collected.get(entrant.name);
          return {
            entrant: entrant.name,
            version: entry?.version ?? '-',
            shape: entry?.shape ?? '-',
            runs: entry?.runs ?? [],
            ...(entrant.skip ? { skipped: entrant.skip } : {}),
            ...(entrant.note ? { note: entrant.note } : {}),
          };
        }),
      ),
    }));
    const report: PeersReport = {
      benchmark: 'peers',
      date: new Date().toISOString(),
      node: process.version,
      commit,
      scale: options.scale,
      repetitions: options.reps,
      total_wall_s: Math.round((performance.now() - began) / 1000),
      workloads,
      not_comparable: NOT_COMPARABLE,
    };
    process.stdout.write(await writeReport(join(process.cwd(), 'bench', 'results'), report));
  } finally {
    await stats.end();
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:peers: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
