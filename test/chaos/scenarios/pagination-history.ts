import { Client } from 'pg';
import { EventType } from '../../../libs/event-kernel/src';
import type { Scenario } from '../scenario';

/** Events an execution of one paginated step may have whatever its page count (started, step, command lifecycle, terminal), heartbeats aside. */
const HISTORY_BOUND = 40;

/**
 * One http step paginating through many pages (success-side continuation,
 * each page sunk): the worker folds the pages into one call, so the ledger
 * holds a bounded history, not an event per page; and every page is sunk.
 */
export const paginationHistory: Scenario = {
  name: 'pagination-history',
  description: 'a pagination of --pages pages (100 in the smoke), each page sunk: the history stays bounded',
  workload: ({ pages }) => [{ playbook: 'pages', payload: { of: pages }, expect: 'COMPLETED' }],
  async inject() {
    // The size is the fault.
  },
  async check({ databaseUrl, services, executionIds, pages }) {
    const db = new Client({ connectionString: databaseUrl });
    const sink = new Client({ connectionString: services.postgres.sinkUrl });
    await Promise.all([db.connect(), sink.connect()]);
    try {
      const problems: string[] = [];
      for (const executionId of executionIds) {
        // Heartbeats grow with the call's duration (one a third of a lease), not with its pages: not counted.
        const [history] = (
          await db.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.event WHERE execution_id = $1 AND event_type <> $2', [
            executionId,
            EventType.CommandHeartbeat,
          ])
        ).rows;
        if (history!.n > HISTORY_BOUND) problems.push(`${executionId}: ${history!.n} events for ${pages} pages (bound ${HISTORY_BOUND})`);
        const [sunk] = (
          await sink.query<{ pages: number }>('SELECT count(DISTINCT item)::int AS pages FROM chaos_sink WHERE execution_id = $1', [
            executionId,
          ])
        ).rows;
        if (sunk!.pages !== pages) problems.push(`${executionId}: ${sunk!.pages} of ${pages} pages sunk`);
      }
      return problems;
    } finally {
      await Promise.all([db.end(), sink.end()]);
    }
  },
};
