import { createHash } from 'node:crypto';
import type { TenantScope } from '@noetl/storage';

/**
 * The event stream's subjects (issue 10): the relay publishes an event on
 * `noetl.events.<tenant>.<org>.<execution>.<shard>`, the shard being the
 * projector shard that owns the execution, so each shard's consumer
 * filters on `noetl.events.<tenant>.<org>.*.<shard>`.
 */
export const EVENTS_SUBJECT_PREFIX = 'noetl.events';

/** A subject token may not contain separators or wildcards. */
function subjectToken(value: string): string {
  return value.replace(/[.*>\s]/g, '_') || '_';
}

export function eventSubject(tenantId: string, organizationId: string, executionId: string): string {
  return `${EVENTS_SUBJECT_PREFIX}.${subjectToken(tenantId)}.${subjectToken(organizationId)}.${subjectToken(executionId)}`;
}

/**
 * The projector shard that owns an execution: the first 32 bits of the
 * sha256 of its id, modulo the shard count. A contract between the relay and
 * every projector: changing it moves executions between shards.
 */
export function shardOf(executionId: string, shardCount: number): number {
  return createHash('sha256').update(executionId).digest().readUInt32BE(0) % shardCount;
}

/** The subject an event is published on: its row's subject and its execution's shard. */
export function shardSubject(subject: string, shard: number): string {
  return `${subject}.${shard}`;
}

/** What one projector shard consumes of one tenant's organization. */
export function shardFilter(shard: number, scope: TenantScope): string {
  return `${EVENTS_SUBJECT_PREFIX}.${subjectToken(scope.tenantId)}.${subjectToken(scope.organizationId)}.*.${shard}`;
}

/** A name JetStream accepts for a durable consumer (no separators, wildcards or spaces). */
export function durableToken(value: string): string {
  return subjectToken(value).replace(/[^\w-]/g, '_');
}
