/** Commands remembered at once; the oldest is forgotten first. */
const CAPACITY = 16_384;

/**
 * The execution of each command this process issued or saw lately: a report
 * or claim on a command locks its execution's stream first, and knowing the
 * execution saves the look-up that would find it. An accelerator
 * (invariant 1): a command it does not know is looked up in the database.
 */
export class CommandOwners {
  private readonly owners = new Map<string, string>();

  constructor(private readonly capacity = CAPACITY) {}

  remember(commandId: string, executionId: string): void {
    this.owners.delete(commandId);
    this.owners.set(commandId, executionId);
    if (this.owners.size > this.capacity) {
      const oldest = this.owners.keys().next().value;
      if (oldest !== undefined) this.owners.delete(oldest);
    }
  }

  ownerOf(commandId: string): string | undefined {
    return this.owners.get(commandId);
  }

  forget(commandId: string): void {
    this.owners.delete(commandId);
  }
}
