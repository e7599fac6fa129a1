import type { ExecutionStatus } from '@noetl/event-kernel';
import type { TenantScope } from '@noetl/storage';

export type Unsubscribe = () => void;

/**
 * What each kind of notification carries: the bus's subject -> payload
 * map. Every message also names its tenant (`ScopeFields`): a process that
 * serves several tenants hands it to that tenant's runtime.
 */
export interface Notifications {
  /** A command is ready to claim; `alone`: run it with nothing beside it. */
  work: ScopeFields & { command_id: string; execution_id: string; alone?: true; traceparent?: string };
  /** A stage has frames to claim (one message per frame slot). */
  frames: ScopeFields & { stage_id: string; execution_id: string; traceparent?: string };
  /** The execution has events to plan. */
  execution: ScopeFields & { execution_id: string };
  /** The execution ended. */
  finished: ScopeFields & { execution_id: string; status: ExecutionStatus };
}

export type NotificationKind = keyof Notifications;

declare const carries: unique symbol;

/** A subject, typed by the kind of notification it carries (`Subjects` makes them). */
export type Subject<K extends NotificationKind> = string & { readonly [carries]: K };

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
  publish<K extends NotificationKind>(subject: Subject<K>, message: Notifications[K]): void;
  subscribe<K extends NotificationKind>(
    subject: Subject<K>,
    handler: (message: Notifications[K]) => void,
    options?: SubscribeOptions,
  ): Unsubscribe;
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
  work: (tenantId: string, pool?: string | null) =>
    subject<'work'>(pool ? `noetl.${tenantId}.pool.${pool}.work` : `noetl.${tenantId}.work`),
  /** `{stage_id, execution_id}`: a stage has frames to claim (as `work`: per pool; one message per frame slot). */
  frames: (tenantId: string, pool?: string | null) =>
    subject<'frames'>(pool ? `noetl.${tenantId}.pool.${pool}.frames` : `noetl.${tenantId}.frames`),
  /** `work`, offered to one worker that registered free slots for the work's tool kinds (seed 001 P4.3). */
  workFor: (tenantId: string, workerId: string) => subject<'work'>(`noetl.${tenantId}.worker.${workerId}.work`),
  /** `frames`, offered to one worker. */
  framesFor: (tenantId: string, workerId: string) => subject<'frames'>(`noetl.${tenantId}.worker.${workerId}.frames`),
  /** `{execution_id}`: the execution has events to plan (schedulers, queue group `schedulers`). */
  execution: (tenantId: string) => subject<'execution'>(`noetl.${tenantId}.execution`),
  /** `{execution_id, status}`: an execution ended (watchers such as `noetl run`; every subscriber). */
  finished: (tenantId: string) => subject<'finished'>(`noetl.${tenantId}.finished`),
} as const;

function subject<K extends NotificationKind>(name: string): Subject<K> {
  return name as Subject<K>;
}

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

/** The scope of a notification's tenant fields. */
export function scopeOf(fields: ScopeFields): TenantScope {
  return { tenantId: fields.tenant_id, organizationId: fields.organization_id };
}

/** `{execution_id}` on the execution's subject: it has events to plan. */
export function notifyExecution(bus: Bus, scope: TenantScope, executionId: string): void {
  bus.publish(Subjects.execution(scope.tenantId), { execution_id: executionId, ...scopeFields(scope) });
}
