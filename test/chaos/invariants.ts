import { Client } from 'pg';
import { EventType, TERMINAL_EXECUTION_EVENTS, foldEvents, stateChecksum } from '../../libs/event-kernel/src';
import { EVENT_SELECT_LIST, connectClient, toLedgerEvent, type EventRow } from '../../libs/storage/src';
import { waitFor } from '../support/wait-for';
import type { Started } from './workload';

/** What one trial's ledger and sink say, counted. */
export interface TrialCounts {
  executions: number;
  /** Executions not terminal by the deadline. */
  stuck: number;
  /** Terminal with another status than the workload expects (e.g. FAILED where it must complete). */
  wrongOutcome: number;
  /** Loop items of a completed loop with no sink hit. */
  lost: number;
  /** Repeated command.issued / loop.done / terminal / frame.committed, and sink hits beyond one per frame attempt. */
  duplicated: number;
  /** Extra sink hits inside a frame that was run again after its worker lost it (at-least-once, allowed). */
  atLeastOnceReruns: number;
  /** Executions whose projection differs from a replay of their ledger. */
  projectionMismatches: number;
  /** Every violation in words, for the report. */
  violations: string[];
}

const TERMINAL = TERMINAL_EXECUTION_EVENTS as readonly string[];

/**
 * Checks the trial's executions (and their children) from the ledger and
 * the sink, never from logs: DESIGN.md s2 invariants 3 and 4 and the
 * projection = replay property.
 */
export async function checkTrial(databaseUrl: string, sinkUrl: string, started: Started[]): Promise<TrialCounts> {
  // The ledger's URL may list several hosts (postgres-failover): connectClient reaches the primary.
  const db = await connectClient(databaseUrl);
  const sink = new Client({ connectionString: sinkUrl });
  await sink.connect();
  try {
    const counts: TrialCounts = {
      executions: 0,
      stuck: 0,
      wrongOutcome: 0,
      lost: 0,
      duplicated: 0,
      atLeastOnceReruns: 0,
      projectionMismatches: 0,
      violations: [],
    };
    const expected = new Map(started.map((s) => [s.executionId, s.expect]));
    const children = await db.query<{ execution_id: string; parent_execution_id: string }>(
      `SELECT execution_id::text, parent_execution_id::text FROM noetl.event WHERE event_type = $1 AND parent_execution_id = ANY($2::bigint[])`,
      [EventType.ExecutionStarted, [...expected.keys()]],
    );
    for (const child of children.rows) expected.set(child.execution_id, expected.get(child.parent_execution_id) ?? 'COMPLETED');
    const violation = (text: string): void => void counts.violations.push(text);

    for (const [executionId, expect] of expected) {
      counts.executions++;
      const events = (
        await db.query<EventRow>(`SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE execution_id = $1 ORDER BY stream_version`, [
          executionId,
        ])
      ).rows.map(toLedgerEvent);
      const terminal = events.filter((e) => TERMINAL.includes(e.event_type));
      if (terminal.length === 0) {
        counts.stuck++;
        violation(`${executionId} not terminal`);
        continue;
      }
      if (terminal.length > 1) {
        counts.duplicated += terminal.length - 1;
        violation(`${executionId} has ${terminal.length} terminal events`);
      }
      const status =
        terminal[0]!.event_type === EventType.ExecutionCompleted
          ? 'COMPLETED'
          : terminal[0]!.event_type === EventType.ExecutionFailed
            ? 'FAILED'
            : 'CANCELLED';
      if (status !== expect) {
        counts.wrongOutcome++;
        violation(`${executionId} ended ${status}, expected ${expect}: ${JSON.stringify(terminal[0]!.payload).slice(0, 300)}`);
      }
      for (const [type, key] of [
        [EventType.CommandIssued, 'command_id'],
        [EventType.LoopDone, 'loop_id'],
        [EventType.FrameCommitted, 'frame_id'],
      ] as const) {
        for (const [id, n] of repeated(events.filter((e) => e.event_type === type).map((e) => String(e[key])))) {
          counts.duplicated += n - 1;
          violation(`${executionId}: ${type} ${n} times for ${key} ${id}`);
        }
      }
      if (status === 'COMPLETED') checkSink(executionId, events, await sinkHits(sink, executionId), counts, violation);
      if (!(await projectionMatchesReplay(db, executionId, events))) {
        counts.projectionMismatches++;
        violation(`${executionId}: projection differs from a replay of its ledger`);
      }
    }
    return counts;
  } finally {
    await Promise.all([db.end(), sink.end()]);
  }
}

/** Sink hits per item of one execution. */
async function sinkHits(sink: Client, executionId: string): Promise<Map<number, number>> {
  const { rows } = await sink.query<{ item: number; hits: number }>(
    'SELECT item, count(*)::int AS hits FROM chaos_sink WHERE execution_id = $1 GROUP BY item',
    [executionId],
  );
  return new Map(rows.map((r) => [r.item, r.hits]));
}

type LedgerEvent = ReturnType<typeof toLedgerEvent>;

/**
 * A completed loop's items each hit the sink at least once (else lost) and
 * at most once per run of their frame (else duplicated); hits beyond the
 * first inside a frame run again after its worker lost it are the
 * at-least-once re-runs DESIGN.md s4 allows ("a crashed worker's frame is retried whole").
 */
function checkSink(
  executionId: string,
  events: LedgerEvent[],
  hits: Map<number, number>,
  counts: TrialCounts,
  violation: (text: string) => void,
): void {
  const loopStarted = events.find((e) => e.event_type === EventType.LoopStarted);
  if (!loopStarted || loopStarted.node_name !== 'each') return;
  const size = Number((loopStarted.payload as { size?: number }).size ?? 0);
  // Which frame holds each item, from the commits (rows first_index .. first_index + row_count - 1).
  const frameOf = new Map<number, string>();
  for (const e of events.filter((e) => e.event_type === EventType.FrameCommitted)) {
    const { first_index: first, row_count: rows } = e.payload as { first_index: number; row_count: number };
    for (let item = first; item < first + rows; item++) frameOf.set(item, String(e.frame_id));
  }
  const runs = new Map<string, number>();
  for (const e of events.filter((e) => e.event_type === EventType.FrameDispatched))
    runs.set(String(e.frame_id), (runs.get(String(e.frame_id)) ?? 0) + 1);
  for (let item = 0; item < size; item++) {
    const n = hits.get(item) ?? 0;
    const allowed = runs.get(frameOf.get(item) ?? '') ?? 1;
    if (n === 0) {
      counts.lost++;
      violation(`${executionId}: item ${item} never reached the sink`);
    } else if (n > allowed) {
      counts.duplicated += n - allowed;
      violation(`${executionId}: item ${item} sunk ${n} times in ${allowed} frame run(s)`);
    }
    if (n > 1) counts.atLeastOnceReruns += Math.min(n, allowed) - 1;
  }
}

/** The projector's row for the execution equals the fold of its ledger (waits for the projector to catch up). */
async function projectionMatchesReplay(db: Client, executionId: string, events: LedgerEvent[]): Promise<boolean> {
  const checksum = stateChecksum(foldEvents(events)!);
  return waitFor(
    async () => {
      const [row] = (
        await db.query<{ version: string; checksum: string }>('SELECT version, checksum FROM noetl.projection WHERE projection_key = $1', [
          executionId,
        ])
      ).rows;
      return row !== undefined && Number(row.version) === events.length && row.checksum === checksum;
    },
    { timeoutMs: 15_000, intervalMs: 200, description: `the projection of ${executionId}` },
  ).catch(() => false);
}

function repeated(ids: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1);
}
