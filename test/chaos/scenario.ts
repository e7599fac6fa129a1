import type { ChaosCluster } from './cluster';
import type { ChaosServices } from './services';
import type { Planned } from './workload';

/** What a fault gets to work with during one trial. */
export interface FaultContext {
  cluster: ChaosCluster;
  services: ChaosServices;
  /** A number in [0, 1) from the trial's seed: every random choice of a trial comes from here. */
  random(): number;
  /** True in the 2-trial smoke of `npm test`: faults that last long (an outage, 100,000 pages) shrink. */
  smoke: boolean;
  /** The loopback endpoint the workload calls. */
  flaky: string;
  /** How long the mixed soak runs. */
  soakMinutes: number;
  /** Pages of the pagination scenario's call. */
  pages: number;
  log(message: string): void;
  /** Starts more executions that the trial waits for and checks (the soak's stream of work). */
  startWorkload(plan: Planned[]): Promise<void>;
}

/** One fault, as a file named for it under scenarios/. */
export interface Scenario {
  name: string;
  /** What the fault is, one line, for the report and the README. */
  description: string;
  /** Runs once whatever --trials says (the soak: its length is --minutes). */
  once?: boolean;
  /**
   * Work is also started at a steady pace through the trial, from before the
   * fault to after it is undone, so the trial can tell when the deployment is
   * back to the pace it kept before the fault (recovery to full throughput).
   */
  steady?: boolean;
  /**
   * Services of its own (a clustered NATS, a PostgreSQL with a standby),
   * started under `home`: the harness runs a deployment of its own on them
   * for this scenario's trials and stops both after. Default: the run's
   * shared services and deployment.
   */
  services?(home: string): Promise<ChaosServices>;
  /** The trial's executions; default: DEFAULT_WORKLOAD. */
  workload?(context: Pick<FaultContext, 'smoke' | 'random' | 'pages'>): Planned[];
  /**
   * Injects the fault and undoes it (restarts what it killed, brings back
   * what it stopped), returning when the deployment may recover on its own.
   * It runs at a moment the trial's seed chose, while the workload runs.
   */
  inject(context: FaultContext): Promise<void>;
  /** Violations specific to this fault (e.g. a history that grew), checked after the common invariants. */
  check?(context: FaultContext & { databaseUrl: string; executionIds: string[] }): Promise<string[]>;
}

/** A wait of `ms`. Faults are held for a time; the trial never sleeps to wait for an outcome (it polls). */
export const hold = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An element of `items` chosen by the trial's seed. */
export function pick<T>(random: () => number, items: T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
