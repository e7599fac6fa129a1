import type { NoetlConfig, Role } from '@noetl/config';
import type { Database } from '@noetl/storage';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import type { Bus } from './bus/bus';
import type { ControlPlane } from './control-plane/control-plane';

export interface EngineOptions {
  config: NoetlConfig;
  database: Database;
  /** Roles to run in this process; default `config.roles`. `api` adds nothing here (the Nest app serves it). */
  roles?: readonly Role[];
  /** Default: NATS when `config.nats` is set, else in-process. The engine closes a bus it created, not one it was given. */
  bus?: Bus;
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
}
