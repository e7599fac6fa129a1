import { EventType, type JsonObject, type LedgerEvent } from '@noetl/event-kernel';

/** Commands remembered at once; the oldest is forgotten first. */
const CAPACITY = 16_384;
/** Specs of commands waiting for a claim remembered at once (a spec can be large: a few thousand, not every command). */
const SPEC_CAPACITY = 4096;

/**
 * The execution of each command this process issued or saw lately: a report
 * or claim on a command locks its execution's stream first, and knowing the
 * execution saves the look-up that would find it. And the spec of each one
 * waiting for a claim: a claim of it here then needs no read of its row
 * (expected-writes.ts). An accelerator (invariant 1): a command it does not
 * know is looked up in the database.
 */
export class CommandOwners {
  private readonly owners = new Map<string, string>();
  private readonly specs = new Map<string, JsonObject>();

  constructor(private readonly capacity = CAPACITY) {}

  /** What a folded event says of its command: issued (its execution and spec), or claimed (its spec no longer needed). */
  observe(event: LedgerEvent): void {
    if (event.event_type === EventType.CommandIssued) {
      const { command_id: commandId, spec } = event.payload;
      this.remember(commandId, event.execution_id);
      bounded(this.specs, commandId, spec, SPEC_CAPACITY);
    } else if (event.event_type === EventType.CommandClaimed && event.command_id !== null) {
      this.specs.delete(event.command_id);
    }
  }

  remember(commandId: string, executionId: string): void {
    bounded(this.owners, commandId, executionId, this.capacity);
  }

  ownerOf(commandId: string): string | undefined {
    return this.owners.get(commandId);
  }

  /** The spec of a command this process issued and nobody claimed yet, as far as it saw. */
  specOf(commandId: string): JsonObject | undefined {
    return this.specs.get(commandId);
  }

  forget(commandId: string): void {
    this.owners.delete(commandId);
    this.specs.delete(commandId);
  }
}

/** Sets `key` last in `map`, forgetting the oldest entry past `capacity`. */
function bounded<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > capacity) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
