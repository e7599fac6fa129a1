// The pure planner (DESIGN.md s4): (playbook, state, event) -> decisions.
export { plan, plansOn } from './plan';
export type { PlannerEnv } from './plan-context';
export { DEFAULT_COMMAND_MAX_ATTEMPTS, commandSpec } from './issue-command';
export { reachability, canReach, type Reachability } from './reachability';
export { executionResult, isSettled } from './check-completion';
export { loopBodySpec } from './loop-body-spec';
export { readCallSpec, readLoopBodySpec, type CallSpec, type LoopBodySpec } from './work-spec';
export { refsToClose } from './close-loop';
export { workToolKinds } from './work-tool-kinds';
export { stepPool, workPool } from './work-pool';
export { credentialRefs, type CredentialRefs } from './credential-refs';
export { playbookScopeNames, scopeNamesOf } from './scope-names';
