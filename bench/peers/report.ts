import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { median } from '../stats';
import type { PerUnit } from './pg-stats';
import type { Workload } from './protocol';

/** The system the peers are compared with: this runtime. */
export const THIS = 'this runtime';
/** This runtime with its work started over REST (`noetl server`, POST /api/execute), compared with the peers in a row of its own. */
export const THIS_REST = 'this runtime (REST)';

/** One system's run of one workload in one repetition. */
export interface RunResult {
  wallMs: number;
  maxRssKb: number;
  perUnit: PerUnit;
}

export interface EntrantResult {
  /** The system and, where it has several, its configuration (`graphile-worker (local queue)`). */
  entrant: string;
  version: string;
  /** How the system ran the workload. */
  shape: string;
  runs: RunResult[];
  /** Median over the runs, in the workload's figure (ms per step, or per second). */
  figure: number | null;
  /** This runtime's figure over this entrant's (1 for this runtime itself). */
  ratio: number | null;
  /** Medians over the runs, per step or item. */
  per_unit: PerUnit | null;
  peak_rss_mb: number | null;
  /** Why this entrant did not run this workload. */
  skipped?: string;
  /** Why it ran fewer repetitions than the others, or anything else the reader must know of its figures. */
  note?: string;
}

export interface WorkloadResult {
  id: string;
  title: string;
  workload: Workload;
  /** What `figure` measures; `lower_is_better` says which way a ratio is good. */
  figure: string;
  lower_is_better: boolean;
  /** What per_unit divides by. */
  unit: 'step' | 'item';
  entrants: EntrantResult[];
}

export interface PeersReport {
  benchmark: 'peers';
  date: string;
  node: string;
  /** The checkout measured (git), `-dirty` when it had uncommitted changes. */
  commit: string;
  scale: 'full' | 'quick';
  repetitions: number;
  /** Wall time of the whole harness run, setup and teardown included. */
  total_wall_s: number;
  workloads: WorkloadResult[];
  not_comparable: string[];
}

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The workload's figure for one run: ms per step for a chain, executions or items per second otherwise. */
export function figureOf(workload: Workload, wallMs: number): number {
  switch (workload.kind) {
    case 'chain':
      return wallMs / workload.steps;
    case 'executions':
      return workload.count / (wallMs / 1000);
    case 'items':
      return workload.count / (wallMs / 1000);
  }
}

const medianOf = (runs: readonly RunResult[], pick: (run: RunResult) => number): number => median(runs.map(pick));

/** Medians over each entrant's runs, and this runtime's figure over each entrant's. */
export function summarise(
  workload: Workload,
  entrants: readonly Omit<EntrantResult, 'figure' | 'ratio' | 'per_unit' | 'peak_rss_mb'>[],
): EntrantResult[] {
  const summarised = entrants.map((entrant): EntrantResult => {
    const { runs } = entrant;
    if (runs.length === 0) return { ...entrant, figure: null, ratio: null, per_unit: null, peak_rss_mb: null };
    const keys = Object.keys(runs[0]!.perUnit) as (keyof PerUnit)[];
    return {
      ...entrant,
      figure: medianOf(runs, (run) => figureOf(workload, run.wallMs)),
      ratio: null,
      per_unit: Object.fromEntries(keys.map((key) => [key, medianOf(runs, (run) => run.perUnit[key])])) as unknown as PerUnit,
      peak_rss_mb: medianOf(runs, (run) => run.maxRssKb / 1024),
    };
  });
  const ours = summarised.find((entrant) => entrant.entrant === THIS)?.figure ?? null;
  return summarised.map((entrant) => ({ ...entrant, ratio: ours === null || entrant.figure === null ? null : ours / entrant.figure }));
}

const cell = (value: number | null, digits = 1): string => (value === null ? '-' : round(value, digits).toLocaleString('en-US'));

function workloadTable(result: WorkloadResult): string[] {
  const better = result.lower_is_better ? '<= 1 is this runtime at least as fast' : '>= 1 is this runtime at least as fast';
  return [
    `### ${result.title}`,
    '',
    `Figure: ${result.figure} (median of the repetitions); ratio: this runtime / peer (${better}); per ${result.unit}: pg_stat_database deltas of the system's own database.`,
    '',
    `| system | version | runs | ${result.figure} | this / peer | transactions / ${result.unit} | inserted | updated | deleted | fetched | returned | peak RSS MB | how it ran |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.entrants.map((entrant) => {
      const unit = entrant.per_unit;
      const perUnit = unit
        ? [unit.transactions, unit.inserted, unit.updated, unit.deleted, unit.fetched, unit.returned].map((value) => cell(value, 2))
        : ['-', '-', '-', '-', '-', '-'];
      const how = entrant.skipped ? `not run: ${entrant.skipped}` : `${entrant.shape}${entrant.note ? `; ${entrant.note}` : ''}`;
      return `| ${entrant.entrant} | ${entrant.version} | ${entrant.runs.length} | ${cell(entrant.figure, result.lower_is_better ? 2 : 0)} | ${cell(entrant.ratio, 2)} | ${perUnit.join(' | ')} | ${cell(entrant.peak_rss_mb, 0)} | ${how} |`;
    }),
    '',
  ];
}

/** One row per workload, one column per system: each median figure, and this runtime / peer after it. */
function summaryTable(workloads: readonly WorkloadResult[]): string[] {
  // In the order of the workload with the most systems, so a system's variants sit together.
  const widest = [...workloads].sort((a, b) => b.entrants.length - a.entrants.length);
  const names = [...new Set(widest.flatMap((result) => result.entrants.map((entrant) => entrant.entrant)))].filter(
    (name) => name !== THIS_REST,
  );
  /** A row with `ours` in this runtime's column and every peer's figure with ours / theirs. */
  const row = (result: WorkloadResult, ours: string, label: string): string => {
    const our = result.entrants.find((entrant) => entrant.entrant === ours)?.figure ?? null;
    const cells = names.map((name) => {
      const entrant = result.entrants.find((candidate) => candidate.entrant === (name === THIS ? ours : name));
      if (!entrant || entrant.figure === null) return '-';
      const figure = cell(entrant.figure, result.lower_is_better ? 2 : 0);
      return name === THIS ? figure : `${figure} (${cell(our === null ? null : our / entrant.figure, 2)})`;
    });
    return `| ${result.title}${label}, ${result.figure} | ${cells.join(' | ')} |`;
  };
  return [
    `| workload (medians) | ${names.join(' | ')} |`,
    `| --- | ${names.map(() => '---').join(' | ')} |`,
    ...workloads.flatMap((result) => [
      row(result, THIS, ''),
      ...(result.entrants.some((entrant) => entrant.entrant === THIS_REST && entrant.figure !== null)
        ? [row(result, THIS_REST, ' over REST')]
        : []),
    ]),
    '',
    'In parentheses: this runtime / peer. For ms per step <= 1, for a rate >= 1 is this runtime at least as fast.',
    '',
  ];
}

export function markdownOf(report: PeersReport): string {
  return [
    `# This runtime next to its Postgres-backed peers (bench:peers)`,
    '',
    `${report.scale} scale, ${report.repetitions} repetition${report.repetitions === 1 ? '' : 's'} interleaved (each repetition runs every system once per workload, in a rotated order), ` +
      `each system in a child process on its own fresh database of one PostgreSQL server; this runtime at ${report.commit}; node ${report.node}; ${report.date}; the whole run took ${round(report.total_wall_s / 60, 1)} min.`,
    '',
    ...summaryTable(report.workloads),
    ...report.workloads.flatMap(workloadTable),
    '## What is not comparable',
    '',
    ...report.not_comparable.map((line) => `- ${line}`),
    '',
  ].join('\n');
}

/** Writes `peers.json` and `peers.md` under `dir`; returns the markdown. */
export async function writeReport(dir: string, report: PeersReport): Promise<string> {
  const markdown = markdownOf(report);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'peers.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, 'peers.md'), markdown);
  return markdown;
}
