import { Client } from 'pg';
import { TERMINAL_EXECUTION_EVENTS } from '../../../libs/event-kernel/src';
import { hold, pick, type Scenario } from '../scenario';
import { SMOKE_WORKLOAD } from '../workload';
import { allRolesSigterm } from './all-roles-sigterm';
import { duplicateDelivery } from './duplicate-delivery';
import { postgresRestart } from './postgres-restart';
import { postgresTerminateBackends } from './postgres-terminate-backends';
import { redisDown } from './redis-down';
import { redisFlush } from './redis-flush';
import { schedulerSigkill } from './scheduler-sigkill';
import { workerClockSkew } from './worker-clock-skew';
import { workerSigkill } from './worker-sigkill';
import { workerSigstop } from './worker-sigstop';

const FAULTS = [
  workerSigkill,
  schedulerSigkill,
  allRolesSigterm,
  workerSigstop,
  duplicateDelivery,
  postgresRestart,
  postgresTerminateBackends,
  redisFlush,
  redisDown,
  workerClockSkew,
];
/** The progress floor: executions ended per window, in every full window of the soak. */
const FLOOR = { smoke: { windowMs: 10_000, ends: 1 }, full: { windowMs: 60_000, ends: 5 } };

let soakWindow = { start: 0, end: 0 };

/**
 * The faults above at random, one every 4-10 s, for `--minutes` (8 s in the
 * smoke), under a steady stream of new executions; afterwards, the number of
 * executions that ended in each minute (10 s window in the smoke) never fell
 * below the floor. One trial, whatever --trials says.
 */
export const mixedSoak: Scenario = {
  name: 'mixed-soak',
  once: true,
  description: `random faults of the other scenarios under a steady workload for --minutes, with a progress floor (>= ${FLOOR.full.ends} executions ended every minute)`,
  async inject(context) {
    const { cluster, random, smoke, soakMinutes, startWorkload, log } = context;
    const end = Date.now() + (smoke ? 8_000 : soakMinutes * 60_000);
    soakWindow = { start: Date.now(), end };
    let nextFault = Date.now() + (smoke ? 1_000 : 4_000);
    while (Date.now() < end) {
      // The api may be down this moment (a fault just now): the stream of work resumes at the next tick.
      await startWorkload(SMOKE_WORKLOAD).catch((error: unknown) => log(`could not start work: ${String(error).slice(0, 200)}`));
      if (Date.now() >= nextFault) {
        const fault = pick(random, FAULTS);
        log(`fault: ${fault.name}`);
        await fault.inject(context);
        await cluster.heal({ restore: true });
        nextFault = Date.now() + 4_000 + Math.floor(random() * 6_000);
      }
      await hold(2_000);
    }
  },
  async check({ databaseUrl, executionIds, smoke }) {
    const floor = smoke ? FLOOR.smoke : FLOOR.full;
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ at: Date }>(
        `SELECT ingest_time AS at FROM noetl.event WHERE execution_id = ANY($1::bigint[]) AND event_type = ANY($2)`,
        [executionIds, TERMINAL_EXECUTION_EVENTS],
      );
      const problems: string[] = [];
      for (let from = soakWindow.start; from + floor.windowMs <= soakWindow.end; from += floor.windowMs) {
        const ended = rows.filter((r) => r.at.getTime() >= from && r.at.getTime() < from + floor.windowMs).length;
        if (ended < floor.ends)
          problems.push(
            `only ${ended} executions ended in the ${floor.windowMs / 1000} s from ${new Date(from).toISOString()} (floor ${floor.ends})`,
          );
      }
      return problems;
    } finally {
      await db.end();
    }
  },
};
