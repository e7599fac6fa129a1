import type { JsonObject } from '@noetl/event-kernel';

export type Unsubscribe = () => void;

export interface SubscribeOptions {
  /** Queue group: each message goes to one subscriber of the group (workers, schedulers). */
  queue?: string;
}

/**
 * Notifications between roles (DESIGN.md invariant 5): a lost message delays
 * work, it never loses it, because Postgres is the authority and sweeps
 * re-notify. Publishing never throws and never waits for a consumer.
 * Adapters: `InProcessBus` (the monolith) and `NatsBus` (separate services).
 */
export interface Bus {
  publish(subject: string, message: JsonObject): void;
  subscribe(subject: string, handler: (message: JsonObject) => void, options?: SubscribeOptions): Unsubscribe;
  close(): Promise<void>;
}

/** The subjects the roles speak on, per tenant. */
export const Subjects = {
  /** `{command_id, execution_id}`: a command is ready to claim (workers, queue group `workers`). */
  work: (tenantId: string): string => `noetl.${tenantId}.work`,
  /** `{stage_id, execution_id}`: a stage has frames to claim (workers, queue group `workers`; one message per frame slot). */
  frames: (tenantId: string): string => `noetl.${tenantId}.frames`,
  /** `{execution_id}`: the execution has events to plan (schedulers, queue group `schedulers`). */
  execution: (tenantId: string): string => `noetl.${tenantId}.execution`,
  /** `{execution_id, status}`: an execution ended (watchers such as `noetl run`; every subscriber). */
  finished: (tenantId: string): string => `noetl.${tenantId}.finished`,
} as const;

export const QueueGroups = { workers: 'workers', schedulers: 'schedulers' } as const;
