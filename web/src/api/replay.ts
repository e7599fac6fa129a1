import { api, data } from './client';

/**
 * The parts of GET /api/replay/state the explorer shows. The endpoint's
 * document leaves the state untyped (it is the reducers' own shape), so the
 * fields read here are named once.
 */
export interface ReplayAnswer {
  position: { event_id: string; stream_version: number; event_time: string };
  checksums: Record<string, string>;
  seeded_from_snapshot: number | null;
  state: {
    execution?: { status: string; ctx?: Record<string, unknown>; result?: unknown };
    steps?: { steps: Record<string, { step: string; status: string; attempts: number; startedAt: string; completedAt?: string }> };
    loops?: Record<string, { step: string; size: number | null; succeededRows: number; failedRows: number; status: string }>;
  };
}

/**
 * The surfaces the page shows; the others (commands, stages, frames,
 * payloads) grow with every frame of a big loop and are left on the server.
 * The checksums cover every surface either way.
 */
const SHOWN = ['execution', 'steps', 'loops'] as const;

/** The state after the first `position` events of the execution, or after its last event without one. */
export async function replayAt(executionId: string, position?: number): Promise<ReplayAnswer> {
  const query = { execution_id: executionId, projection: [...SHOWN], ...(position !== undefined ? { as_of_position: position } : {}) };
  const answer = await data(api.GET('/api/replay/state', { params: { query } }));
  return answer as unknown as ReplayAnswer;
}
