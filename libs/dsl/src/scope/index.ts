// The render scope (DSL.md s6), shared by the scheduler (arcs, set, loop `in`)
// and the worker (tool config and input).
export { buildScope, RESERVED_SCOPE_NAMES, type BuildScopeArgs } from './build-scope';
export { stepResultView, unwrapResultView, type StepResultViewOptions } from './step-result-view';
export { toPlainJson, isJsonObject } from './plain-json';
export { resultViewsOf, withResultViews, type ResultViews } from './result-views';
export { chunkView } from './chunk-view';
