import { credentialRefs, loopBodySpec, workPool, workToolKinds } from '@noetl/dsl';
import type { ExecutionState } from '@noetl/event-kernel';
import type { Queryable } from '@noetl/storage';
import type { CatalogService } from '../catalog/catalog.service';
import type { LoopBody } from './materialize';

/** What a loop step's stage keeps of its body: the tool kinds its frames need, their pool and the credentials they may resolve. */
export async function loopBodyOf(catalog: CatalogService, q: Queryable, state: ExecutionState, stepName: string): Promise<LoopBody> {
  const playbook = await catalog.playbook(state.catalogId, q);
  const step = playbook.steps.find((candidate) => candidate.name === stepName);
  if (!step) return { tools: [], pool: null, credentials: [] };
  const spec = loopBodySpec(playbook, step);
  const refs = credentialRefs(spec);
  return { tools: workToolKinds(spec), pool: workPool(spec), credentials: refs.templated ? null : refs.names };
}
