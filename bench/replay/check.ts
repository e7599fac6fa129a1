import { REDUCER_VERSION } from '@noetl/event-kernel';
import type { Engine } from '@noetl/runtime';
import { ProjectionRepository, type Database } from '@noetl/storage';
import type { ProjectionRecorder } from './recorder';

/** The parity of one execution: how many positions were replayed and what disagreed. */
export interface Parity {
  executionId: string;
  events: number;
  positions: number;
  mismatches: string[];
}

/**
 * The replay parity gate for one execution (issue 10 item 5, seed 002
 * s17.4): replayed checksums at the last event equal the live projection's,
 * the state at EVERY position equals what the projector held after that
 * event, and a replay seeded from a snapshot equals one from the first event.
 */
export async function checkParity(engine: Engine, database: Database, recorder: ProjectionRecorder, executionId: string): Promise<Parity> {
  const mismatches: string[] = [];
  const latest = await engine.own.replay.stateAt({ executionId });
  const events = latest.position.stream_version;
  const live = await new ProjectionRepository(REDUCER_VERSION).get(database, engine.config.tenancy, executionId);
  if (!live) mismatches.push('no projection row');
  else if (live.version !== events || live.checksum !== latest.checksums.all) {
    mismatches.push(
      `live projection v${live.version} ${live.checksum.slice(0, 12)} != replay v${events} ${latest.checksums.all.slice(0, 12)}`,
    );
  }
  const fromStart = await engine.own.replay.stateAt({ executionId, snapshots: false });
  if (fromStart.checksums.all !== latest.checksums.all)
    mismatches.push(`a replay from the first event differs from one seeded by snapshot #${latest.seeded_from_snapshot}`);
  for (let position = 1; position <= events; position++) {
    const held = recorder.at(executionId, position);
    const replayed = (await engine.own.replay.stateAt({ executionId, asOfPosition: position, projection: ['execution'] })).checksums.all;
    if (held === undefined) mismatches.push(`position ${position}: the projector never folded it`);
    else if (held !== replayed)
      mismatches.push(`position ${position}: projector held ${held.slice(0, 12)}, replay gives ${replayed.slice(0, 12)}`);
  }
  return { executionId, events, positions: events, mismatches };
}
