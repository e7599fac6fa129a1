/** A value that must never be printed: `toString`/`toJSON` mask it. */
export class Secret {
  constructor(private readonly value: string) {}
  reveal(): string {
    return this.value;
  }
  toString(): string {
    return '***';
  }
  toJSON(): string {
    return '***';
  }
}
