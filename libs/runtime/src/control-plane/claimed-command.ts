import type { ExecutionState } from '@noetl/event-kernel';
import { buildScope, chunkView, isJsonObject, resultViewsOf, scopeNamesOf, toPlainJson, type JsonObject } from '@noetl/dsl';
import type { CommandRow, PayloadStore } from '@noetl/storage';
import type { CatalogService } from '../catalog/catalog.service';
import { refsOfState, type PayloadCache } from '../state/payload-cache';
import type { ClaimedCommand, ShardItem } from './control-plane';
import { loopItems } from './loop-collection';

/** What building a claim's render scope reads: the playbook, and results stored by reference. */
export interface ClaimScopeDeps {
  catalog: CatalogService;
  payloads: PayloadCache;
}

/** The columns of a command row its claim hands to the worker. */
export type ClaimableCommand = Pick<
  CommandRow,
  'command_id' | 'execution_id' | 'step' | 'run_id' | 'kind' | 'attempt' | 'max_attempts' | 'spec' | 'loop_id' | 'iteration'
>;

/** A lease just granted: the token only its claimer receives, and its end. */
export interface GrantedLease {
  token: string;
  leaseUntil: Date;
}

/**
 * The render scope of an execution as plain JSON (results by reference
 * resolved, plus `extra`), and its result views: only the names the work's
 * `spec` reads (the whole scope for python), so a claim costs what its step
 * reads, not what the execution has done so far. `via`: the store payloads
 * are read through (a transaction's own, when one holds a lock).
 */
export async function claimScope(
  state: ExecutionState,
  spec: JsonObject,
  deps: ClaimScopeDeps,
  options: { extra?: Record<string, unknown>; via?: PayloadStore } = {},
): Promise<Pick<ClaimedCommand, 'scope' | 'result_views'>> {
  const only = scopeNamesOf(spec);
  const playbook = await deps.catalog.playbook(state.catalogId);
  const resolve = await deps.payloads.resolverFor(refsOfState(state, only ? { only } : {}), options.via);
  // toPlainJson copies: the scope shares nothing with the (cached, folded-into) state.
  const scope = toPlainJson(buildScope({ state, playbook, resolve, extra: options.extra ?? {}, ...(only ? { only } : {}) }));
  return { scope: isJsonObject(scope) ? scope : {}, result_views: resultViewsOf(state, playbook, only) };
}

/**
 * A claimed command as its worker receives it: the row, the lease, and the
 * render scope of the execution's `state`; for a run an `on: call.partial`
 * arc started, `chunk` with its rows; for a fan-out shard, its item
 * (DSL.md s3 `stream`, s4.2).
 */
export async function claimedCommand(
  command: ClaimableCommand,
  lease: GrantedLease,
  state: ExecutionState,
  deps: ClaimScopeDeps,
  via?: PayloadStore,
): Promise<ClaimedCommand> {
  const { payloads } = deps;
  const spec = command.spec ?? {};
  const chunk = command.run_id === null ? undefined : state.runs[command.run_id]?.chunk;
  const loop = command.loop_id === null ? undefined : state.loops[command.loop_id];
  const shard: ShardItem | undefined =
    loop && command.iteration !== null
      ? {
          loop_id: loop.loopId,
          index: command.iteration,
          total: loop.size,
          item: toPlainJson((await loopItems(loop, command.iteration, 1, payloads, via))[0] ?? null),
        }
      : undefined;
  const extra = chunk ? { chunk: chunkView(chunk, await payloads.readOnce(chunk.rows_ref, via)) } : {};
  return {
    command_id: command.command_id,
    lease_token: lease.token,
    execution_id: command.execution_id,
    step: command.step,
    run_id: command.run_id ?? '',
    kind: command.kind ?? 'pipeline',
    attempt: command.attempt,
    max_attempts: command.max_attempts,
    lease_until: lease.leaseUntil.toISOString(),
    spec,
    ...(await claimScope(state, spec, deps, { extra, ...(via ? { via } : {}) })),
    ...(shard ? { shard } : {}),
  };
}
