import { stateChecksum, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';

/**
 * What the projector held after each event, recorded while it ran (the
 * replay gate's reference): execution -> stream version -> checksum.
 */
export class ProjectionRecorder {
  private readonly checksums = new Map<string, Map<number, string>>();

  readonly observe = (event: LedgerEvent, state: ExecutionState): void => {
    let versions = this.checksums.get(event.execution_id);
    if (!versions) this.checksums.set(event.execution_id, (versions = new Map()));
    versions.set(event.stream_version, stateChecksum(state));
  };

  /** The checksum held after `version`, undefined when the projector never folded it. */
  at(executionId: string, version: number): string | undefined {
    return this.checksums.get(executionId)?.get(version);
  }
}
