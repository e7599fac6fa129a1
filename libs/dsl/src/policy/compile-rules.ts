import type { Policy } from '../model';
import { compileRuleAction } from './compile-rule-action';
import { checkKeys, childPath, describe, isRecord, readWhen, type Report } from './policy-values';

/**
 * `tool.spec.policy` -> policies, in order (first match wins; `mode` may only
 * be `exclusive`). Rule forms (RESULT_SHAPES s6 "Rule forms"):
 * - `{when: "{{ expr }}" | true, then: {do, ...}}`
 * - `{else: {then: {do, ..., set}}}`
 * - `{else: {do, ..., set}}` (no `then`; its `set` is kept)
 * A bare list is accepted as the rules. Every rule matches any outcome
 * (`on: 'any'`): an `else: continue` after an error is the skip pattern.
 */
export function compileRules(raw: unknown, path: string, report: Report): Policy[] {
  if (raw === undefined || raw === null) return [];
  let rules: unknown = raw;
  let rulesPath = path;
  if (isRecord(raw)) {
    checkKeys(raw, ['mode', 'rules'], path, report, 'a policy');
    if (raw.mode !== undefined && raw.mode !== null && raw.mode !== 'exclusive') {
      report(childPath(path, 'mode'), `policy mode must be \`exclusive\` (the first matching rule wins), got ${describe(raw.mode)}`);
    }
    rules = raw.rules;
    rulesPath = childPath(path, 'rules');
  }
  if (!Array.isArray(rules)) {
    report(rulesPath, `policy rules must be a list of {when, then} or {else} rules, got ${describe(rules)}`);
    return [];
  }
  const policies: Policy[] = [];
  for (const [index, rule] of rules.entries()) {
    const policy = compileRule(rule, `${rulesPath}[${index}]`, report);
    if (policy !== undefined) policies.push(policy);
  }
  return policies;
}

function compileRule(raw: unknown, path: string, report: Report): Policy | undefined {
  if (!isRecord(raw)) {
    report(path, `a rule must be a mapping {when, then} or {else}, got ${describe(raw)}`);
    return undefined;
  }
  if ('else' in raw) {
    checkKeys(raw, ['else'], path, report, 'an `else` rule');
    const elsePath = childPath(path, 'else');
    const body = raw.else;
    if (isRecord(body) && 'then' in body) {
      checkKeys(body, ['then'], elsePath, report, '`else`');
      return rulePolicy('else', compileRuleAction(body.then, childPath(elsePath, 'then'), report));
    }
    return rulePolicy('else', compileRuleAction(body, elsePath, report));
  }
  checkKeys(raw, ['when', 'then'], path, report, 'a rule');
  const whenPath = childPath(path, 'when');
  if (raw.when === undefined || raw.when === null) {
    report(whenPath, 'a rule needs `when: <template or boolean>` (or is an `else:` rule)');
    return undefined;
  }
  const when = readWhen(raw.when, whenPath, report);
  if (raw.then === undefined || raw.then === null) {
    report(childPath(path, 'then'), 'a rule needs `then: {do: ...}`');
    return undefined;
  }
  const compiled = compileRuleAction(raw.then, childPath(path, 'then'), report);
  return when === undefined ? undefined : rulePolicy(when, compiled);
}

function rulePolicy(when: Policy['when'], compiled: ReturnType<typeof compileRuleAction>): Policy | undefined {
  if (compiled === undefined) return undefined;
  return { when, on: 'any', action: compiled.action, set: compiled.set };
}
