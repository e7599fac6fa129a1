import { canonicalChecksum } from '../canonical-json';
import type { Json, PayloadRef } from '../event-payloads';
import type { ExecutionState, LoopState } from '../reducers/execution-state';

/**
 * The version of what `applyEvent` produces. Bump it with any change to the
 * fold that alters a state folded from the same events: a snapshot folded by
 * another version is then ignored by replay (it changes speed, never answers).
 */
export const REDUCER_VERSION = '3';

/** The parts of an execution's state replay can show and checksum one by one (issue 10). */
export const SURFACES = ['execution', 'steps', 'commands', 'loops', 'stages', 'frames', 'payloads'] as const;
export type Surface = (typeof SURFACES)[number];

/** Every payload the state refers to by reference, with where it is referred to. */
export interface PayloadUse {
  at: string;
  ref: PayloadRef;
}

/**
 * The state split into surfaces. Each field of the state lands in exactly
 * one surface but `payloads`, which lists the references the others hold;
 * the checksum of the whole is the state's own, so nothing can escape it.
 */
export function surfacesOf(state: ExecutionState): Record<Surface, Json> {
  const { steps, runs, results, commands, loops, ...execution } = state;
  const loopList = Object.values(loops);
  return toJson({
    execution,
    steps: { steps, runs, results },
    commands,
    loops: Object.fromEntries(loopList.map((loop) => [loop.loopId, loopFields(loop)])),
    stages: Object.fromEntries(
      loopList.map((loop) => [loop.stageId, { loopId: loop.loopId, frameCount: loop.frameCount, inFlight: loop.inFlight }]),
    ),
    frames: Object.fromEntries(loopList.map((loop) => [loop.stageId, loop.frames])),
    payloads: payloadUses(state),
  });
}

/** sha256 of each surface's canonical JSON, and `all`: of the whole state. */
export function checksumsOf(state: ExecutionState): Record<Surface | 'all', string> {
  const surfaces = surfacesOf(state);
  const sums = Object.fromEntries(SURFACES.map((surface) => [surface, canonicalChecksum(surfaces[surface])])) as Record<Surface, string>;
  return { ...sums, all: stateChecksum(state) };
}

/** The checksum a projection row keeps: of the whole state. */
export function stateChecksum(state: ExecutionState): string {
  return canonicalChecksum(state);
}

/** The payload references of a state, in a stable order. */
export function payloadUses(state: ExecutionState): PayloadUse[] {
  const uses: PayloadUse[] = [];
  if (state.resultRef) uses.push({ at: 'result', ref: state.resultRef });
  for (const [step, result] of Object.entries(state.results)) if (result.ref) uses.push({ at: `results.${step}`, ref: result.ref });
  for (const run of Object.values(state.runs)) {
    if (run.resultRef) uses.push({ at: `runs.${run.runId}.result`, ref: run.resultRef });
    if (run.chunk) uses.push({ at: `runs.${run.runId}.chunk.rows`, ref: run.chunk.rows_ref });
  }
  for (const loop of Object.values(state.loops)) {
    if (loop.collectionRef) uses.push({ at: `loops.${loop.loopId}.collection`, ref: loop.collectionRef });
    for (const frame of Object.values(loop.frames))
      if (frame.outputRef) uses.push({ at: `loops.${loop.loopId}.frames.${frame.frameIndex}.output`, ref: frame.outputRef });
    for (const [index, shard] of Object.entries(loop.shards ?? {}))
      if (shard.resultRef) uses.push({ at: `loops.${loop.loopId}.shards.${index}.result`, ref: shard.resultRef });
  }
  return uses.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function loopFields(loop: LoopState): Omit<LoopState, 'frames' | 'inFlight' | 'frameCount'> {
  const { frames: _frames, inFlight: _inFlight, frameCount: _frameCount, ...fields } = loop;
  return fields;
}

/** Drops `undefined` members, as the canonical form and a JSON column do. */
function toJson<T>(value: T): { [K in keyof T]: Json } {
  return JSON.parse(JSON.stringify(value)) as { [K in keyof T]: Json };
}
