import type { NoetlConfig, Role } from '@noetl/config';
import type { Database } from '@noetl/storage';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import type { Bus } from './bus/bus';
import type { ControlPlane } from './control-plane/control-plane';
import type { ProjectorTuning } from './projection/projector';

export interface EngineOptions {
  config: NoetlConfig;
  /** The ledger. Absent only in a worker alone whose control plane is given or remote (`config.server`): it needs none. */
  database?: Database;
  /** Roles to run in this process; default `config.roles`. `api` adds nothing here (the Nest app serves it). */
  roles?: readonly Role[];
  /** Default: an in-process bus, which the engine closes; a bus it was given is the caller's to close. */
  bus?: Bus;
  /**
   * Whether the engine subscribes its scheduler and worker to the bus
   * (default true). False: the caller delivers notifications (the apps'
   * NATS handlers call `scheduler.process` and `worker.offer`).
   */
  listen?: boolean;
  /** The worker's id; default: host, pid and a random suffix. The apps pick it first, to subscribe to its own subjects. */
  workerId?: string;
  logger?: Logger;
  /** Default: `defaultTools()` limited by the config (`workerToolOptions`); the engine closes it at stop. */
  tools?: ToolRegistry;
  /**
   * The worker's control plane. Default: the in-process one on `database`;
   * an HTTP one when `config.server` is set and this process does not serve the api.
   */
  controlPlane?: ControlPlane;
  /**
   * Who runs the scheduler's periodic sweep (reaper, timers, re-offers):
   * the engine itself every `scheduler.sweepMs` (default), or the caller,
   * by calling `sweepLogged()` on its own schedule.
   */
  sweepEvery?: 'engine' | 'caller';
  /** Whether the scheduler role fires due schedules in its sweep (default true; `noetl run`, a one-shot, does not). */
  schedules?: boolean;
  /**
   * The projector role's tuning for the replay gate: a recorder of the state
   * after every event folded, and a snapshot cadence (default
   * PROJECTION_SNAPSHOT_EVERY). Unset in production.
   */
  projectorTuning?: ProjectorTuning;
}
