import { sha256Hex } from './canonical-json';
import type { EventEnvelope } from './envelope';

/** A pure function that lifts an event of `schemaName@fromVersion` to `toVersion`. */
export interface Upcaster {
  schemaName: string;
  fromVersion: number;
  toVersion: number;
  upcast(event: EventEnvelope): EventEnvelope;
}

export class UpcasterError extends Error {
  readonly code = 'upcaster_invalid';
}

/**
 * Upcasters registered by (schema name, from version). Each must advance the
 * version, so a chain always terminates; `digest` names the set, so a replay
 * snapshot built with another set is recognised and ignored (DESIGN.md s7).
 */
export class UpcasterRegistry {
  private readonly byKey = new Map<string, Upcaster>();

  register(upcaster: Upcaster): this {
    if (upcaster.toVersion <= upcaster.fromVersion) {
      throw new UpcasterError(
        `upcaster ${upcaster.schemaName}@${upcaster.fromVersion} must advance the version (got ${upcaster.toVersion})`,
      );
    }
    const key = `${upcaster.schemaName}@${upcaster.fromVersion}`;
    if (this.byKey.has(key)) throw new UpcasterError(`upcaster ${key} is registered twice`);
    this.byKey.set(key, upcaster);
    return this;
  }

  /** Applies every matching upcaster in order until none applies. */
  upcast(event: EventEnvelope): EventEnvelope {
    let current = event;
    for (let upcaster = this.find(current); upcaster; upcaster = this.find(current)) {
      const next = upcaster.upcast(current);
      if (next.schema_version !== upcaster.toVersion) {
        throw new UpcasterError(
          `upcaster ${upcaster.schemaName}@${upcaster.fromVersion} returned version ${next.schema_version}, promised ${upcaster.toVersion}`,
        );
      }
      current = next;
    }
    return current;
  }

  /** Stable sha256 of the registered transitions, independent of registration order. */
  digest(): string {
    const transitions = [...this.byKey.values()].map((u) => `${u.schemaName}@${u.fromVersion}->${u.toVersion}`).sort();
    return sha256Hex(transitions.join('\n'));
  }

  private find(event: EventEnvelope): Upcaster | undefined {
    return this.byKey.get(`${event.schema_name}@${event.schema_version}`);
  }
}
