// Retry and policies (DSL.md s5): every spelling compiles to model/policy.ts,
// and one evaluator decides what follows a call. Pure: templates and the
// random source are injected.
export type { Report } from './policy-values';
export type { CompileSink } from './compile-retry';
export { compileRetry } from './compile-retry';
export { compileRules } from './compile-rules';
export { compileSet } from './compile-set';
export { POLICY_SET_BARE_SCOPE } from './compile-rule-action';
export { DEFAULT_CONTINUATION_MAX_CALLS, DEFAULT_RETRY_ATTEMPTS, DEFAULT_RULE_BACKOFF, DEFAULT_UNIFIED_BACKOFF } from './policy-defaults';
export type { CallOutcome, HttpFacts } from './outcome-scope';
export { outcomeScope, responseBody } from './outcome-scope';
export type { EvaluateOptions, PolicyDecision } from './evaluate-policies';
export { evaluatePolicies } from './evaluate-policies';
export { nextRetryDelayMs } from './next-retry-delay';
export { mergeNextCall } from './merge-next-call';
export { collectPage } from './collect-page';
export { classifyError } from './classify-error';
export * from './sql-states';
