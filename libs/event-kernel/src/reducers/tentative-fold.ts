import type { LedgerEvent } from '../envelope';
import { applyEvent } from './apply-event';
import type { ExecutionState } from './execution-state';
import { liveWork } from './live-work';

/**
 * Folds events into a state so that they can be taken back. The planner
 * folds each decision of a batch into the state it was given, so later
 * decisions see earlier ones, and takes them all back before it returns:
 * the caller's state is unchanged, at the cost of what the batch touched
 * (a copy of the whole state per planned event made every step cost as much
 * as the execution's history).
 *
 * `applyEvent` writes through a proxy that records, before each write, how
 * to restore what it replaces; `undo` plays the record backwards. A deleted
 * key comes back in its place (the object's other keys are re-laid in their
 * order), so iteration order, which the planner relies on, survives.
 */
export class TentativeFold {
  private readonly journal: (() => void)[] = [];
  private readonly proxies = new WeakMap<object, object>();
  private readonly targets = new WeakMap<object, object>();

  constructor(readonly state: ExecutionState) {
    // The live-work index must exist before the first tentative fold, so that its changes are journaled too.
    liveWork(state);
  }

  apply(event: LedgerEvent): void {
    applyEvent(this.wrap(this.state), event);
  }

  /** Restores the state as it was before the first `apply`. */
  undo(): void {
    for (let i = this.journal.length - 1; i >= 0; i -= 1) this.journal[i]!();
    this.journal.length = 0;
  }

  private wrap<T extends object>(target: T): T {
    const known = this.proxies.get(target);
    if (known) return known as T;
    const proxy = new Proxy(target, {
      get: (object, key, receiver) => {
        const value: unknown = Reflect.get(object, key, receiver);
        return typeof value === 'object' && value !== null ? this.wrap(value) : value;
      },
      set: (object, key, value: unknown) => {
        this.remember(object, key);
        return Reflect.set(object, key, this.unwrap(value));
      },
      defineProperty: (object, key, descriptor) => {
        this.remember(object, key);
        return Reflect.defineProperty(
          object,
          key,
          'value' in descriptor ? { ...descriptor, value: this.unwrap(descriptor.value) } : descriptor,
        );
      },
      deleteProperty: (object, key) => {
        if (!Object.prototype.hasOwnProperty.call(object, key)) return true;
        const entries = Reflect.ownKeys(object).map((own) => [own, Reflect.getOwnPropertyDescriptor(object, own)!] as const);
        this.journal.push(() => {
          for (const own of Reflect.ownKeys(object)) if (!(Array.isArray(object) && own === 'length')) Reflect.deleteProperty(object, own);
          for (const [own, descriptor] of entries) Reflect.defineProperty(object, own, descriptor);
        });
        return Reflect.deleteProperty(object, key);
      },
    });
    this.proxies.set(target, proxy);
    this.targets.set(proxy, target);
    return proxy;
  }

  /** Journals how to put back `object[key]` as it is now (and an array's length, which writing an index may grow). */
  private remember(object: object, key: string | symbol): void {
    if (Array.isArray(object) && key !== 'length') this.remember(object, 'length');
    const previous = Reflect.getOwnPropertyDescriptor(object, key);
    this.journal.push(previous ? () => void Reflect.defineProperty(object, key, previous) : () => void Reflect.deleteProperty(object, key));
  }

  /** A value written into the state is the object itself, never one of this fold's proxies. */
  private unwrap(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? (this.targets.get(value) ?? value) : value;
  }
}
