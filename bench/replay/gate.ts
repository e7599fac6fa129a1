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
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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

const PATHS: Record<GateResult['path'], string> = {
  jetstream: 'event relay -> JetStream -> projector shards (NATS_URL set)',
  'in-process': 'the projector role following the ledger in process (no NATS_URL)',
};

/** What one run of the gate found on its path; the results file keeps the latest run of each path. */
interface PathReport {
  date: string;
  summary: GateResult['summary'];
  runs: GateResult['runs'];
  mismatches: string[];
}

async function report(result: GateResult, root: string): Promise<void> {
  const dir = join(root, 'bench/results');
  const file = join(dir, 'replay-gate.json');
  const previous =
    (
      await readFile(file, 'utf8')
        .then((text) => JSON.parse(text) as { paths?: Partial<Record<GateResult['path'], PathReport>> })
        .catch(() => undefined)
    )?.paths ?? {};
  const mismatches = [
    ...result.parities.flatMap((p) => p.mismatches.map((m) => `execution ${p.executionId}: ${m}`)),
    ...result.rebuilt.map((id) => `execution ${id}: the rebuilt projection differs from the one the run left`),
  ];
  const paths = { ...previous, [result.path]: { date: new Date().toISOString(), summary: result.summary, runs: result.runs, mismatches } };
  const lines = ['# Replay parity gate', '', 'The latest run on each path.', ''];
  for (const [path, run] of Object.entries(paths) as [GateResult['path'], PathReport][]) {
    const { summary } = run;
    lines.push(
      `## ${PATHS[path]}, ${run.date}`,
      '',
      '| executions | events replayed | positions checked | rebuild mismatches | mismatches |',
      '| --- | --- | --- | --- | --- |',
      `| ${summary.executions} | ${summary.events_replayed} | ${summary.positions_checked} | ${summary.rebuild_mismatches} | ${summary.mismatches} |`,
      '',
      'Named runs of the gate corpus:',
      '',
      ...run.runs.map((named) => `- ${named.name}: ${named.executionId} ${named.status}`),
      ...run.mismatches.map((m) => `- ${m}`),
      '',
    );
  }
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${JSON.stringify({ paths }, null, 2)}\n`);
  await writeFile(join(dir, 'replay-gate.md'), `${lines.join('\n')}`);
  console.log(lines.join('\n'));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`replay gate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
