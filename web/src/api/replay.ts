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
    commands?: Record<string, ReplayCommand>;
    loops?: Record<string, { step: string; size: number | null; succeededRows: number; failedRows: number; status: string }>;
  };
}

export interface ReplayCommand {
  commandId: string;
  step: string;
  kind: string;
  attempt: number;
  maxAttempts: number;
  status: string;
  workerId?: string;
  issuedAt: string;
  completedAt?: string;
  iteration?: number;
}

/** The state after the first `position` events of the execution. */
export async function replayAt(executionId: string, position: number): Promise<ReplayAnswer> {
  const answer = await data(api.GET('/api/replay/state', { params: { query: { execution_id: executionId, as_of_position: position } } }));
  return answer as unknown as ReplayAnswer;
}
