import type { JsonObject } from '@noetl/event-kernel';
import type { TenantScope } from '@noetl/storage';

export type Unsubscribe = () => void;

export interface SubscribeOptions {
  /** Queue group: each message goes to one subscriber of the group (workers, schedulers). */
  queue?: string;
}

/**
 * Notifications between roles (DESIGN.md invariant 5): a lost message delays
 * work, it never loses it, because Postgres is the authority and sweeps
 * re-notify. Publishing never throws and never waits for a consumer.
 * Adapters: `InProcessBus` (the monolith) and, at the app edge, Nest's NATS
 * transport (`NestBus` and `@OnNotification` handlers in libs/platform).
 */
export interface Bus {
  publish(subject: string, message: JsonObject): void;
  subscribe(subject: string, handler: (message: JsonObject) => void, options?: SubscribeOptions): Unsubscribe;
  close(): Promise<void>;
  /**
   * Whether a message on `subject` can reach any subscriber. Absent: it may
   * (a broker routes it). The in-process bus knows: another process's
   * worker is out of its reach, so work is never offered to it.
   */
  reaches?(subject: string): boolean;
}

/** The subjects the roles speak on, per tenant (`*` as the tenant subscribes to every tenant's). */
export const Subjects = {
  /**
   * `{command_id, execution_id}`: a command is ready to claim (unrestricted workers, queue group `workers`);
   * work of a pool goes to that pool's subject, which only the pool's workers hear.
   */
  work: (tenantId: string, pool?: string | null): string => (pool ? `noetl.${tenantId}.pool.${pool}.work` : `noetl.${tenantId}.work`),
  /** `{stage_id, execution_id}`: a stage has frames to claim (as `work`: per pool; one message per frame slot). */
  frames: (tenantId: string, pool?: string | null): string => (pool ? `noetl.${tenantId}.pool.${pool}.frames` : `noetl.${tenantId}.frames`),
  /** `work`, offered to one worker that registered free slots for the work's tool kinds (seed 001 P4.3). */
  workFor: (tenantId: string, workerId: string): string => `noetl.${tenantId}.worker.${workerId}.work`,
  /** `frames`, offered to one worker. */
  framesFor: (tenantId: string, workerId: string): string => `noetl.${tenantId}.worker.${workerId}.frames`,
  /** `{execution_id}`: the execution has events to plan (schedulers, queue group `schedulers`). */
  execution: (tenantId: string): string => `noetl.${tenantId}.execution`,
  /** `{execution_id, status}`: an execution ended (watchers such as `noetl run`; every subscriber). */
  finished: (tenantId: string): string => `noetl.${tenantId}.finished`,
} as const;

export const QueueGroups = { workers: 'workers', schedulers: 'schedulers' } as const;

/**
 * The tenant fields every notification carries: a process that serves
 * several tenants (one subscription on `*`) hands the message to that
 * tenant's runtime. The subject names the tenant too, for routing in NATS.
 */
export interface ScopeFields {
  tenant_id: string;
  organization_id: string;
}

export function scopeFields(scope: TenantScope): ScopeFields {
  return { tenant_id: scope.tenantId, organization_id: scope.organizationId };
}

/** The scope a notification names; undefined for a message without one (not ours to handle). */
export function scopeOfMessage(message: { readonly tenant_id?: unknown; readonly organization_id?: unknown }): TenantScope | undefined {
  const { tenant_id: tenantId, organization_id: organizationId } = message;
  return typeof tenantId === 'string' && typeof organizationId === 'string' ? { tenantId, organizationId } : undefined;
}

/** `{execution_id}` on the execution's subject: it has events to plan. */
export function notifyExecution(bus: Bus, scope: TenantScope, executionId: string): void {
  bus.publish(Subjects.execution(scope.tenantId), { execution_id: executionId, ...scopeFields(scope) });
}
