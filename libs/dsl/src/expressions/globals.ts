/**
 * The functions a template may call by name: `range` (Python's, within the
 * render's `maxRangeSize`), `now()` and `uuid()` from the injected clock and
 * id source.
 */
import { markCallable, positionalOnly, type TemplateFunction } from './callables';
import type { ExpressionEnv } from './expression-env';
import { renderBudget } from './render-budget';

function integer(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error('range() arguments must be integers');
  return value;
}

function range(...args: unknown[]): number[] {
  const positional = positionalOnly('range', args).map(integer);
  const [start, stop, step] =
    positional.length === 1 ? [0, positional[0] ?? 0, 1] : [positional[0] ?? 0, positional[1] ?? 0, positional[2] ?? 1];
  if (step === 0) throw new Error('range() step must not be zero');
  const count = Math.max(0, Math.ceil((stop - start) / step));
  renderBudget().range(count);
  return Array.from({ length: count }, (_, i) => start + i * step);
}

export function createGlobals(env: ExpressionEnv): ReadonlyMap<string, TemplateFunction> {
  return new Map<string, TemplateFunction>([
    ['range', markCallable(range)],
    [
      'now',
      markCallable((...args: unknown[]) => {
        positionalOnly('now', args);
        return env.now().toISOString();
      }),
    ],
    [
      'uuid',
      markCallable((...args: unknown[]) => {
        positionalOnly('uuid', args);
        return env.uuid();
      }),
    ],
  ]);
}
