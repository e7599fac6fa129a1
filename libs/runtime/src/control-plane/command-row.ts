import type { CommandStatus, JsonObject } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';

/** `noetl.command`: derived from the ledger; the row lock is what serialises reports on one command. */
export interface CommandRow {
  command_id: string;
  execution_id: string;
  step: string;
  run_id: string | null;
  kind: string | null;
  attempt: number;
  max_attempts: number;
  status: CommandStatus;
  spec: JsonObject | null;
  worker_id: string | null;
  lease_until: Date | null;
  created_at: Date;
}

export const TERMINAL_COMMAND_STATUSES: readonly CommandStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'ABANDONED'];

export function isTerminalCommand(status: CommandStatus): boolean {
  return TERMINAL_COMMAND_STATUSES.includes(status);
}

/**
 * The row, locked for the rest of `q`'s transaction, after its execution's
 * stream lock (`lockStream`: always first, see Ledger.lockStream);
 * undefined when unknown to this tenant.
 */
export async function lockCommand(
  q: Queryable,
  scope: TenantScope,
  commandId: string,
  lockStream: (executionId: string) => Promise<void>,
): Promise<CommandRow | undefined> {
  if (!/^\d{1,19}$/.test(commandId)) return undefined;
  const [owner] = await q.query<{ execution_id: string }>(
    'SELECT execution_id FROM noetl.command WHERE command_id = $1::bigint AND tenant_id = $2 AND organization_id = $3',
    [commandId, scope.tenantId, scope.organizationId],
  );
  if (!owner) return undefined;
  await lockStream(String(owner.execution_id));
  const [row] = await q.query<CommandRow>(
    `SELECT command_id, execution_id, step, run_id, kind, attempt, max_attempts, status, spec, worker_id, lease_until, created_at
       FROM noetl.command WHERE command_id = $1::bigint AND tenant_id = $2 AND organization_id = $3 FOR UPDATE`,
    [commandId, scope.tenantId, scope.organizationId],
  );
  return row ? { ...row, command_id: String(row.command_id), execution_id: String(row.execution_id) } : undefined;
}
