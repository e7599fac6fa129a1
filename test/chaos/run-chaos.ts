import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventType, TERMINAL_EXECUTION_EVENTS } from '../../libs/event-kernel/src';
import { connectClient } from '../../libs/storage/src';
import { startScriptedHttpServer } from '../support/scripted-http-server';
import { waitFor } from '../support/wait-for';
import { ChaosCluster } from './cluster';
import { checkTrial, type TrialCounts } from './invariants';
import { hold, type FaultContext, type Scenario } from './scenario';
import { startChaosServices, type ChaosServices } from './services';
import { DEFAULT_WORKLOAD, SMOKE_WORKLOAD, prepareWorkload, startWorkload, type Planned, type Started } from './workload';

export interface ChaosOptions {
  scenarios: Scenario[];
  trials: number;
  seed: number;
  smoke: boolean;
  /** How long the mixed soak runs. */
  soakMinutes: number;
  /** Pages of the pagination scenario (the smoke reads 100). */
  pages: number;
  log(message: string): void;
}

/** One scenario's trials, summed. */
export interface ScenarioResult extends Omit<TrialCounts, 'violations'> {
  scenario: string;
  description: string;
  trials: number;
  /** From the fault's start to the first progress the ledger records after it, one per trial. */
  recoveryMs: number[];
  /** From the fault's start to the ledger's pace of progress back at the pace before it, one per trial of a steady scenario. */
  throughputMs: number[];
  /** The first violations seen, for diagnosis. */
  violations: string[];
}

/** How long every execution of a trial has to become terminal once its fault is undone. */
const TERMINAL_DEADLINE_MS = 90_000;
const PROGRESS_EVENTS = [EventType.CommandCompleted, EventType.FrameCommitted, EventType.LoopDone, ...TERMINAL_EXECUTION_EVENTS];
const KEPT_VIOLATIONS = 20;
/** A steady scenario's feed: one execution this often, from WARMUP before the fault to FEED_AFTER after it is undone. */
const STEADY_EVERY_MS = 250;
const STEADY_WORK: Planned = { playbook: 'retry', expect: 'COMPLETED' };
const WARMUP_MS = { full: 4_000, smoke: 2_000 };
/** The pace is progress events over this window; the deployment is back at full pace when a window from the fault on has this share of the one before it. */
const PACE_WINDOW_MS = 2_000;
const PACE_STEP_MS = 100;
const FULL_PACE_SHARE = 0.8;
const FEED_AFTER_MS = 3 * PACE_WINDOW_MS;
const SMOKE_PAGES = 100;

/**
 * Starts the harness's own PostgreSQL, NATS, Redis and loopback endpoint,
 * the deployment as separate role processes (a scenario with services of
 * its own gets a deployment of its own), and runs every scenario's trials
 * on it in turn: start the workload, inject the fault at a moment
 * the seed chose, wait for every execution to end, restore the baseline
 * deployment, and count what the ledger and the sink say.
 */
export async function runChaos(options: ChaosOptions): Promise<ScenarioResult[]> {
  const home = mkdtempSync(join(tmpdir(), 'noetl-chaos-'));
  // Traversable, so PostgreSQL (run as its own OS user when we are root) keeps its data dir inside it.
  chmodSync(home, 0o755);
  const { log } = options;
  log(`chaos: services and deployment under ${home}`);
  const flaky = await startScriptedHttpServer();
  let shared: Deployment | undefined;
  try {
    const results: ScenarioResult[] = [];
    for (const scenario of options.scenarios) {
      if (scenario.services) {
        log(`chaos: ${scenario.name} runs on services of its own`);
        // One deployment at a time on two cores: the shared one is started again for a later scenario that needs it.
        await shared?.stop();
        shared = undefined;
        const own = await startDeployment(await scenario.services(join(home, scenario.name)), home);
        try {
          results.push(await runScenario(scenario, own, flaky.url, options));
        } finally {
          await own.stop();
        }
      } else {
        shared ??= await startDeployment(await startChaosServices(home), home);
        results.push(await runScenario(scenario, shared, flaky.url, options));
      }
    }
    return results;
  } finally {
    await shared?.stop();
    await flaky.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Services and the deployment of role processes on them, with the workload's playbooks registered. */
interface Deployment {
  services: ChaosServices;
  cluster: ChaosCluster;
  stop(): Promise<void>;
}

async function startDeployment(services: ChaosServices, home: string): Promise<Deployment> {
  let cluster: ChaosCluster | undefined;
  const stop = async (): Promise<void> => {
    await cluster?.stop();
    await services.close();
  };
  try {
    cluster = await ChaosCluster.start(services, home, { workers: 2, workerConcurrency: 4 });
    await prepareWorkload(cluster.client, services.postgres.sinkUrl);
    return { services, cluster, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every trial of one scenario on `deployment`, which is restored to its baseline after. */
async function runScenario(
  scenario: Scenario,
  { services, cluster }: Deployment,
  flaky: string,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const { log } = options;
  const result: ScenarioResult = {
    scenario: scenario.name,
    description: scenario.description,
    trials: 0,
    executions: 0,
    stuck: 0,
    wrongOutcome: 0,
    lost: 0,
    duplicated: 0,
    atLeastOnceReruns: 0,
    projectionMismatches: 0,
    recoveryMs: [],
    throughputMs: [],
    violations: [],
  };
  for (let trial = 1; trial <= (scenario.once ? 1 : options.trials); trial++) {
    const random = seededRandom(options.seed, scenario.name, trial);
    const started: Started[] = [];
    const context: FaultContext = {
      cluster,
      services,
      random,
      smoke: options.smoke,
      flaky,
      soakMinutes: options.soakMinutes,
      pages: options.smoke ? SMOKE_PAGES : options.pages,
      log: (message) => log(`  ${scenario.name} #${trial}: ${message}`),
      startWorkload: async (plan: Planned[]) => void started.push(...(await startWorkload(cluster.client, plan, flaky))),
    };
    try {
      await runTrial(
        scenario,
        context,
        started,
        result,
        services.postgres.url,
        services.postgres.sinkUrl,
        options.smoke ? SMOKE_WORKLOAD : DEFAULT_WORKLOAD,
        log,
        trial,
      );
    } catch (error) {
      // A trial the harness could not drive (an api that did not answer): counted, the deployment restored, the run goes on.
      result.trials++;
      result.wrongOutcome++;
      result.violations.push(`trial ${trial} broke: ${String(error).slice(0, 500)}`);
      log(`${scenario.name} #${trial}: broke: ${String(error)}\n${cluster.outputs()}`);
      await cluster.heal();
    }
  }
  await cluster.heal({ restore: true });
  return result;
}

/** One trial: the workload, the fault at the seed's moment, every execution's end, the baseline restored, the counts. */
async function runTrial(
  scenario: Scenario,
  context: FaultContext,
  started: Started[],
  result: ScenarioResult,
  databaseUrl: string,
  sinkUrl: string,
  workload: Planned[],
  log: (message: string) => void,
  trial: number,
): Promise<void> {
  const { cluster, random } = context;
  const trialStart = Date.now();
  const feed = scenario.steady ? steadyFeed(context) : undefined;
  await context.startWorkload(scenario.workload?.(context) ?? workload);
  await hold(
    (feed ? WARMUP_MS[context.smoke ? 'smoke' : 'full'] : 0) +
      (context.smoke ? 100 + Math.floor(random() * 500) : 200 + Math.floor(random() * 1_500)),
  );
  const marker = await lastEventId(databaseUrl);
  const faultAt = Date.now();
  // Polled while the fault runs: progress the rest of the deployment makes meanwhile counts.
  const progress = firstProgressAfter(databaseUrl, marker, started, TERMINAL_DEADLINE_MS);
  await scenario.inject(context);
  const recovered = await progress;
  if (feed) {
    await hold(FEED_AFTER_MS);
    await feed.stop();
  }
  const ended = await allTerminal(databaseUrl, started, TERMINAL_DEADLINE_MS, () => cluster.exitedOnTheirOwn().length > 0);
  // A role that crashed on its own is a violation; it is replaced, and the trial's executions get their deadline again.
  const crashed = await cluster.heal();
  if (crashed.length) await allTerminal(databaseUrl, started, TERMINAL_DEADLINE_MS);
  const counts = await checkTrial(databaseUrl, sinkUrl, started);
  const specific = [
    ...crashed,
    ...((await scenario.check?.({ ...context, databaseUrl, executionIds: started.map((s) => s.executionId) })) ?? []),
  ];
  add(result, counts, specific);
  if (recovered !== undefined) result.recoveryMs.push(recovered - faultAt);
  const fullPace = feed ? await fullPaceAt(databaseUrl, started, faultAt, feed.stoppedAt()) : undefined;
  if (fullPace !== undefined) result.throughputMs.push(fullPace - faultAt);
  const bad = counts.violations.length + specific.length;
  log(
    `${scenario.name} #${trial}: ${counts.executions} executions in ${((Date.now() - trialStart) / 1000).toFixed(1)} s` +
      `${ended ? '' : ' (deadline passed)'}, recovery ${recovered === undefined ? 'none' : `${recovered - faultAt} ms`}` +
      `${feed ? `, full pace ${fullPace === undefined ? 'not reached' : `${fullPace - faultAt} ms`}` : ''}` +
      `${bad ? `, ${bad} violation(s): ${[...counts.violations, ...specific].slice(0, 3).join('; ')}` : ', invariants hold'}`,
  );
  if (bad && !ended) log(cluster.outputs());
}

function add(result: ScenarioResult, counts: TrialCounts, specific: string[]): void {
  result.trials++;
  for (const key of ['executions', 'stuck', 'wrongOutcome', 'lost', 'duplicated', 'atLeastOnceReruns', 'projectionMismatches'] as const)
    result[key] += counts[key];
  result.violations.push(...[...counts.violations, ...specific].slice(0, Math.max(0, KEPT_VIOLATIONS - result.violations.length)));
  if (specific.length) result.wrongOutcome += specific.length;
}

/** A deterministic [0, 1) stream per (seed, scenario, trial): mulberry32 over a hash of the three. */
export function seededRandom(seed: number, scenario: string, trial: number): () => number {
  let state = createHash('sha256').update(`${seed}/${scenario}/${trial}`).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A steady scenario's feed: one more execution every STEADY_EVERY_MS until
 * stopped. A start the fault refuses (the api cut off) is skipped: the pace
 * drops, which is what the trial measures.
 */
function steadyFeed(context: FaultContext): { stop(): Promise<void>; stoppedAt(): number } {
  let running = true;
  let stoppedAt = 0;
  const feeding = (async () => {
    while (running) {
      await context.startWorkload([STEADY_WORK]).catch(() => undefined);
      await hold(STEADY_EVERY_MS);
    }
    stoppedAt = Date.now();
  })();
  return {
    stop: async () => {
      running = false;
      await feeding;
    },
    stoppedAt: () => stoppedAt,
  };
}

/**
 * When the ledger's pace of progress came back after the fault: the pace is
 * the progress events of the trial's executions over PACE_WINDOW_MS; from the
 * fault on, the first window whose pace is at least FULL_PACE_SHARE of the
 * window's before the fault starts where the deployment is back at full pace
 * (0 when the fault did not slow it). Undefined with no pace before the fault
 * to compare with, or when it did not come back while work was fed.
 */
async function fullPaceAt(url: string, started: Started[], faultAt: number, fedUntil: number): Promise<number | undefined> {
  const rows = await queryOnce<{ at: number }>(
    url,
    'SELECT (extract(epoch FROM event_time) * 1000)::float8 AS at FROM noetl.event WHERE execution_id = ANY($1::bigint[]) AND event_type = ANY($2)',
    [started.map((s) => s.executionId), PROGRESS_EVENTS],
  );
  const times = rows.map((row) => row.at);
  const paceFrom = (from: number): number => times.filter((at) => at >= from && at < from + PACE_WINDOW_MS).length;
  const before = paceFrom(faultAt - PACE_WINDOW_MS);
  if (before === 0) return undefined;
  for (let from = faultAt; from + PACE_WINDOW_MS <= fedUntil; from += PACE_STEP_MS) {
    if (paceFrom(from) >= FULL_PACE_SHARE * before) return from;
  }
  return undefined;
}

/** One query on a fresh connection: the database may have been restarted (or failed over: a multi-host URL reaches the primary) since the last one. */
async function queryOnce<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = await connectClient(url, { connectionTimeoutMillis: 2_000 });
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function lastEventId(url: string): Promise<string> {
  const [row] = await queryOnce<{ id: string | null }>(url, 'SELECT max(event_id)::text AS id FROM noetl.event');
  return row?.id ?? '0';
}

/** When the ledger first records progress after `marker` (or the workload is all terminal), polling from now. */
async function firstProgressAfter(url: string, marker: string, started: Started[], timeoutMs: number): Promise<number | undefined> {
  return waitFor(
    async () => {
      const [row] = await queryOnce<{ n: number }>(
        url,
        'SELECT count(*)::int AS n FROM noetl.event WHERE event_id > $1::bigint AND event_type = ANY($2)',
        [marker, PROGRESS_EVENTS],
      );
      return (row?.n ?? 0) > 0 || (await allTerminalNow(url, started)) ? Date.now() : false;
    },
    { timeoutMs, intervalMs: 100, description: 'progress after the fault' },
  ).catch(() => undefined);
}

async function allTerminalNow(url: string, started: Started[]): Promise<boolean> {
  const [row] = await queryOnce<{ n: number }>(
    url,
    'SELECT count(DISTINCT execution_id)::int AS n FROM noetl.event WHERE execution_id = ANY($1::bigint[]) AND event_type = ANY($2)',
    [started.map((s) => s.executionId), TERMINAL_EXECUTION_EVENTS],
  );
  return row?.n === started.length;
}

/** Waits for every execution to end; stops early when `abandon` says so (a role crashed: the trial heals and waits again). */
async function allTerminal(url: string, started: Started[], timeoutMs: number, abandon: () => boolean = () => false): Promise<boolean> {
  return waitFor(async () => (abandon() ? 'abandoned' : allTerminalNow(url, started)), {
    timeoutMs,
    intervalMs: 200,
    description: 'every execution terminal',
  })
    .then((result) => result === true)
    .catch(() => false);
}
