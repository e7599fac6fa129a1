import { join } from 'node:path';
import type { Workload } from './protocol';
import { THIS, THIS_REST, type WorkloadResult } from './report';

export type Scale = 'full' | 'quick';

export type WorkloadPlan = Omit<WorkloadResult, 'entrants'>;

/** A system in one configuration, as one child process runs it. */
export interface Entrant {
  /** As the report names it. */
  name: string;
  /** A database-name-safe key. */
  id: string;
  script: string;
  variant?: string;
  /** Why it does not run this workload (the report says so). */
  skip?: string;
  /** Runs in only this many repetitions (the first), for the reason in `note`. */
  repetitions?: number;
  note?: string;
}

/** The workloads of a scale: `quick` is a smoke run of the same shapes. */
export function workloadsOf(scale: Scale): WorkloadPlan[] {
  const chain = scale === 'full' ? 100 : 10;
  const executions = scale === 'full' ? 1000 : 20;
  const items = scale === 'full' ? [10_000, 100_000] : [1000];
  return [
    {
      id: `chain-${chain}`,
      title: `${chain}-step chain`,
      workload: { kind: 'chain', steps: chain },
      figure: 'ms per step',
      lower_is_better: true,
      unit: 'step',
    },
    {
      id: `executions-${executions}x3`,
      title: `${executions.toLocaleString('en-US')} executions of a 3-step workflow`,
      workload: { kind: 'executions', count: executions, steps: 3 },
      figure: 'executions/s',
      lower_is_better: false,
      unit: 'step',
    },
    ...items.map((count): WorkloadPlan => ({
      id: `items-${count}`,
      title: `${count.toLocaleString('en-US')} no-op loop items`,
      workload: { kind: 'items', count },
      figure: 'items/s',
      lower_is_better: false,
      unit: 'item',
    })),
  ];
}

/**
 * Past `above` items a peer's fan-out is left out (`skip`) or run in the
 * first repetition only (`once`), for the full run to stay within about 15
 * minutes on a 2-core machine; the report gives the reason. The rates are what
 * this harness measured on such a machine.
 */
const ITEM_LIMITS: Record<string, { above: number; limit: 'skip' | 'once'; reason: string }> = {
  dbos: {
    above: 10_000,
    limit: 'skip',
    reason: 'about 450 steps/s inside one workflow at 10k: 100k items would take nearly 4 minutes per repetition',
  },
  'graphile-worker': {
    above: 10_000,
    limit: 'skip',
    reason:
      'about 1,200 jobs/s without its local queue at 10k: 100k items would take about 1.5 minutes per repetition; its local-queue run stands for it',
  },
  'pg-boss': {
    above: 10_000,
    limit: 'once',
    reason:
      'one repetition only: its rate falls as its job table grows; 100k items took 104 to 122 s a repetition (about 900 items/s against about 5,000 at 10k), so three would be a third of the whole run',
  },
};

export function entrantsOf(workload: Workload, noetlScript: string, peersDir: string): Entrant[] {
  const entrants: Entrant[] = [
    { name: THIS, id: 'this', script: noetlScript },
    // How users start work: POST /api/execute against a running `noetl server`.
    ...(workload.kind === 'executions' ? [{ name: THIS_REST, id: 'this-rest', script: noetlScript, variant: 'rest' }] : []),
    { name: 'DBOS Transact', id: 'dbos', script: join(peersDir, 'dbos.mjs') },
    { name: 'graphile-worker', id: 'graphile-worker', script: join(peersDir, 'graphile-worker.mjs') },
    ...(workload.kind === 'items'
      ? [
          {
            name: 'graphile-worker (local queue)',
            id: 'graphile-worker-lq',
            script: join(peersDir, 'graphile-worker.mjs'),
            variant: 'local-queue',
          },
        ]
      : []),
    { name: 'pg-boss', id: 'pg-boss', script: join(peersDir, 'pg-boss.mjs') },
  ];
  return entrants.map((entrant) => {
    const limit = entrant.variant ? undefined : ITEM_LIMITS[entrant.id];
    if (!limit || workload.kind !== 'items' || workload.count <= limit.above) return entrant;
    return limit.limit === 'skip' ? { ...entrant, skip: limit.reason } : { ...entrant, repetitions: 1, note: limit.reason };
  });
}

export const NOT_COMPARABLE = [
  "DBOS Transact's steps are functions of the workflow's own process: a step is a checkpoint row written after an in-process call. " +
    "This runtime's steps are commands that a separate worker could claim and run (here the worker shares the scheduler's process), " +
    'each with its event ledger entries (5 a step, the events replay needs: `npm run bench`), its command row and the rows derived from the events.',
  "graphile-worker and pg-boss are job queues: a 'step' is a job whose handler enqueues the next one, with no workflow state, " +
    'no history of results, no routing and no replay; a job row is updated in place and deleted (graphile-worker) or archived later (pg-boss).',
  "This runtime's loop keeps every item's result in the loop's result (`{{ step.results }}`) and commits a frame of items per claim; " +
    "the queues' items are jobs whose results are dropped. graphile-worker's local queue locks a batch of jobs per fetch.",
  "DBOS's no-op fan-out is one workflow whose steps run 100 at a time; a fan-out over child workflows on a DBOS queue would cost more per item.",
  'Each figure includes submitting the work (starting executions, inserting jobs) and waiting for the last unit, not the start or stop of the system; ' +
    "the pg_stat_database deltas are the run child's less an idle child's (the same system started and stopped with no work), so neither the schema install nor the start and stop are in them; " +
    "a system's background polling while the work runs is.",
  "Peak RSS is the maxRSS of the child process running the system, the Node runtime and the system's libraries included; over REST, that of the `noetl server` process.",
  "Over REST the figure includes each execution's POST /api/execute (64 in flight, from a client in another process) and the server's HTTP stack; the peers are started in their own process, as their libraries are used.",
];
