import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from './run-chaos';
import { SCENARIOS } from './scenarios';

const order = (name: string): number => SCENARIOS.findIndex((s) => s.name === name);

const RESULTS_DIR = join(__dirname, '..', '..', 'bench', 'results');

/** The nearest-rank percentile of `values` (ms), or null with none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The results table as markdown: one row per scenario. */
export function resultsTable(results: ScenarioResult[]): string {
  const rows = results.map((r) =>
    [
      r.scenario,
      r.trials,
      r.executions,
      r.lost,
      r.duplicated,
      r.stuck,
      r.wrongOutcome,
      r.projectionMismatches,
      r.atLeastOnceReruns,
      ms(percentile(r.recoveryMs, 50)),
      ms(percentile(r.recoveryMs, 99)),
      ms(percentile(r.throughputMs ?? [], 50)),
      ms(percentile(r.throughputMs ?? [], 99)),
    ].join(' | '),
  );
  return [
    '| scenario | trials | executions | lost | duplicated | stuck | wrong outcome | projection != replay | at-least-once re-runs | recovery p50 | recovery p99 | full pace p50 | full pace p99 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

interface RunInfo {
  seed: number;
  trials: number;
  startedAt: string;
  seconds: number;
}

/**
 * Writes bench/results/chaos.md and chaos.json. A run of some scenarios
 * (`--scenario`) replaces their rows and keeps the other scenarios' rows of
 * earlier runs, each row saying which run it came from.
 */
export function writeChaosResults(fresh: ScenarioResult[], run: RunInfo): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, 'chaos.json');
  const earlier = existsSync(path)
    ? ((JSON.parse(readFileSync(path, 'utf8')) as { scenarios?: (ScenarioResult & { run?: RunInfo })[] }).scenarios ?? [])
    : [];
  const rows = [...fresh.map((r) => ({ ...r, run })), ...earlier.filter((e) => e.run && !fresh.some((r) => r.scenario === e.scenario))];
  const results = rows.sort((a, b) => order(a.scenario) - order(b.scenario));
  const json = {
    ...run,
    scenarios: results.map((r) => ({
      ...r,
      recovery_p50_ms: percentile(r.recoveryMs, 50),
      recovery_p99_ms: percentile(r.recoveryMs, 99),
      full_pace_p50_ms: percentile(r.throughputMs ?? [], 50),
      full_pace_p99_ms: percentile(r.throughputMs ?? [], 99),
    })),
  };
  writeFileSync(join(RESULTS_DIR, 'chaos.json'), `${JSON.stringify(json, null, 2)}\n`);
  const violations = results
    .filter((r) => r.violations.length)
    .map((r) => `### ${r.scenario}\n${r.violations.map((v) => `- ${v}`).join('\n')}`);
  const md = [
    '# Chaos trials',
    '',
    ...[...new Set(results.map((r) => JSON.stringify(r.run)))].map((text) => {
      const r = JSON.parse(text) as RunInfo;
      return `- run of ${r.startedAt} (${Math.round(r.seconds)} s, seed ${r.seed}, ${r.trials} trials): ${results
        .filter((x) => JSON.stringify(x.run) === text)
        .map((x) => x.scenario)
        .join(', ')}`;
    }),
    '',
    'Counted from the ledger and the sink table, never from logs. Recovery: from the fault to the first progress',
    '(a command completed, a frame committed, a loop done or an execution ended) the ledger records after it.',
    'Full pace (scenarios fed work at a steady pace, one execution every 250 ms, through the fault): from the fault to the',
    'start of the first 2 s window with at least 80% of the progress of the 2 s before the fault (0: the fault did not slow it).',
    '',
    resultsTable(results),
    '',
    ...results.map((r) => `- **${r.scenario}**: ${r.description}`),
    ...(violations.length ? ['', '## Violations (first 20 per scenario)', '', ...violations] : []),
    '',
  ].join('\n');
  writeFileSync(join(RESULTS_DIR, 'chaos.md'), md);
}

function ms(value: number | null): string {
  return value === null ? '-' : `${value} ms`;
}
