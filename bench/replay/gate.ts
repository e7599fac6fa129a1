/**
 * `npm run replay:gate [-- --fixtures <n>|--no-fixtures] [--shards <n>]`
 * (issue 10 item 5, issue 30): the replay parity gate (run-gate.ts) on the
 * deployment this environment configures: relay -> JetStream -> projector
 * shards with NATS_URL, the in-process projector without. Exits 1 on any
 * mismatch. Writes bench/results/replay-gate.{json,md}.
 *
 * DATABASE_URL names the server (a database of its own is recreated on it);
 * without it, the embedded PostgreSQL under NOETL_HOME is used.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { wholeNumberOption } from '../../apps/cli/src/shared/whole-number-option';
import { repoRoot } from '../../tools/fixtures/src/main';
import { runReplayGate, type GateOptions, type GateResult } from './run-gate';

const GATE_DATABASE = 'noetl_replay_gate';

async function main(): Promise<number> {
  const options = new Command('replay:gate')
    .option('--fixtures <n>', 'run only the first n NoETL fixtures (default: every one)', wholeNumberOption)
    .option('--no-fixtures', 'run no NoETL fixture')
    .option('--shards <n>', 'projector shards on the JetStream path', wholeNumberOption, 2)
    .parse(process.argv)
    .opts<{ fixtures?: number | false; shards: number }>();
  const root = repoRoot();
  const fixtures: GateOptions['fixtures'] = options.fixtures === false ? 'none' : (options.fixtures ?? 'all');
  const result = await runReplayGate({ env: process.env, databaseName: GATE_DATABASE, root, fixtures, shards: options.shards });
  await report(result, root);
  return result.summary.mismatches === 0 ? 0 : 1;
}

async function report(result: GateResult, root: string): Promise<void> {
  const { summary } = result;
  const lines = [
    '# Replay parity gate',
    '',
    `Path: ${result.path === 'jetstream' ? 'event relay -> JetStream -> projector shards (NATS_URL set)' : 'the projector role following the ledger in process (no NATS_URL)'}.`,
    '',
    '| executions | events replayed | positions checked | rebuild mismatches | mismatches |',
    '| --- | --- | --- | --- | --- |',
    `| ${summary.executions} | ${summary.events_replayed} | ${summary.positions_checked} | ${summary.rebuild_mismatches} | ${summary.mismatches} |`,
    '',
    'Named runs of the gate corpus:',
    '',
    ...result.runs.map((run) => `- ${run.name}: ${run.executionId} ${run.status}`),
    ...result.parities.filter((p) => p.mismatches.length > 0).flatMap((p) => [``, `execution ${p.executionId}:`, ...p.mismatches.map((m) => `- ${m}`)]),
    ...result.rebuilt.map((id) => `- execution ${id}: the rebuilt projection differs from the one the run left`),
  ];
  const dir = join(root, 'bench/results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'replay-gate.json'), `${JSON.stringify({ path: result.path, summary, runs: result.runs, parities: result.parities }, null, 2)}\n`);
  await writeFile(join(dir, 'replay-gate.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`replay gate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
