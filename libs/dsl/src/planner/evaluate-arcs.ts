import type { TemplateRenderer } from '../expressions';
import type { Arc, Next } from '../model';

/**
 * The arcs that fire (DSL.md s2.1): `exclusive` -> the first whose `when`
 * holds (an absent `when` holds), `inclusive` -> every one that holds, in
 * order. Nothing fires when none holds (the branch ends; `on_no_match` only
 * decides whether the step may give the execution its result, see
 * check-completion.ts). A template error propagates (the step fails).
 * Only the arcs of one trigger are evaluated: the step's outcome (arcs
 * without `on`), or with `on` each chunk of a streaming step.
 */
export function evaluateArcs(engine: TemplateRenderer, next: Next, scope: Record<string, unknown>, on?: Arc['on']): Arc[] {
  const fired: Arc[] = [];
  for (const arc of next.arcs) {
    if (arc.on !== on || !engine.evaluateCondition(arc.when, scope)) continue;
    fired.push(arc);
    if (next.mode === 'exclusive') break;
  }
  return fired;
}
