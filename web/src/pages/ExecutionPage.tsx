import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, data, type Schemas } from '../api/client';
import { replayAt, type ReplayAnswer } from '../api/replay';
import { EventHistory } from '../components/EventHistory';
import { ExecutionActions } from '../components/ExecutionActions';
import { ExecutionGraph, type StepProgress } from '../components/ExecutionGraph';
import { duration, when } from '../components/format';
import { StatusBadge } from '../components/StatusBadge';
import { Timeline } from '../components/Timeline';

const REFRESH_MS = 1000;
const EVENT_PAGE = 1000;

/** Every event of the execution, a page of 1000 at a time. */
async function allEvents(id: string): Promise<Schemas['EventViewDto'][]> {
  const events: Schemas['EventViewDto'][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await data(api.GET('/api/executions/{id}/events', { params: { path: { id }, query: { limit: EVENT_PAGE, ...(after ? { after } : {}) } } }));
    events.push(...page.events);
    if (!page.next_after || page.events.length < EVENT_PAGE) return events;
    after = page.next_after;
  }
}

export function ExecutionPage() {
  const { id = '' } = useParams();
  const detail = useQuery({
    queryKey: ['execution', id],
    queryFn: () => data(api.GET('/api/executions/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data?.status === 'RUNNING' ? REFRESH_MS : false),
  });
  const running = detail.data?.status === 'RUNNING';
  const events = useQuery({
    queryKey: ['execution', id, 'events'],
    queryFn: () => allEvents(id),
    refetchInterval: running ? REFRESH_MS : false,
  });
  const graph = useQuery({
    queryKey: ['playbook', detail.data?.path, detail.data?.version],
    queryFn: () => data(api.GET('/api/catalog/playbook', { params: { query: { path: detail.data!.path, version: detail.data!.version } } })),
    enabled: detail.data !== undefined,
    staleTime: Infinity,
  });
  const children = useQuery({
    queryKey: ['execution', id, 'children'],
    queryFn: () => data(api.GET('/api/executions', { params: { query: { parent: id, limit: 100 } } })),
    refetchInterval: running ? REFRESH_MS : false,
  });

  // The scrubber's position: undefined follows the last event.
  const [chosen, setChosen] = useState<number>();
  const last = events.data?.length ?? 0;
  const position = Math.min(chosen ?? last, last);
  const replay = useQuery({
    queryKey: ['execution', id, 'replay', position],
    queryFn: () => replayAt(id, position),
    enabled: position > 0,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });

  if (detail.error) return <p role="alert">{detail.error.message}</p>;
  if (!detail.data) return <p>Loading…</p>;
  const e = detail.data;
  return (
    <section className="execution">
      <h1>
        Execution {e.execution_id} <StatusBadge status={e.status} />
      </h1>
      <dl className="header">
        <dt>Playbook</dt>
        <dd>
          {e.path}@{e.version}
        </dd>
        <dt>Started</dt>
        <dd>{when(e.started_at)}</dd>
        <dt>Duration</dt>
        <dd>{duration(e.started_at, e.completed_at)}</dd>
        {e.parent_execution_id && (
          <>
            <dt>Parent</dt>
            <dd>
              <Link to={`/executions/${e.parent_execution_id}`}>{e.parent_execution_id}</Link>
            </dd>
          </>
        )}
        {children.data && children.data.executions.length > 0 && (
          <>
            <dt>Children</dt>
            <dd>
              {children.data.executions.map((c) => (
                <Link key={c.execution_id} to={`/executions/${c.execution_id}`}>
                  {c.execution_id}
                </Link>
              ))}
            </dd>
          </>
        )}
        {e.rerun_of && (
          <>
            <dt>Rerun of</dt>
            <dd>
              <Link to={`/executions/${e.rerun_of.execution_id}`}>{e.rerun_of.execution_id}</Link>{' '}
              {e.rerun_of.from_step === null ? 'from the start' : `from step ${e.rerun_of.from_step}`}
            </dd>
          </>
        )}
        {e.reruns.length > 0 && (
          <>
            <dt>Reruns</dt>
            <dd>
              {e.reruns.map((rerun) => (
                <Link key={rerun} to={`/executions/${rerun}`}>
                  {rerun}
                </Link>
              ))}
            </dd>
          </>
        )}
        {e.error && (
          <>
            <dt>Error</dt>
            <dd role="alert">
              {e.error.step ? `${e.error.step}: ` : ''}
              {e.error.kind} — {e.error.message}
            </dd>
          </>
        )}
        {e.status === 'COMPLETED' && (
          <>
            <dt>Result</dt>
            <dd>
              <pre>{JSON.stringify(e.result, null, 2)}</pre>
            </dd>
          </>
        )}
      </dl>
      {running && <ExecutionActions executionId={e.execution_id} />}

      <section className="time-travel" aria-label="Time travel">
        <h2>Time travel</h2>
        <label>
          Event position
          <input
            type="range"
            min={last > 0 ? 1 : 0}
            max={last}
            value={position}
            disabled={last === 0}
            onChange={(ev) => {
              const next = Number(ev.target.value);
              setChosen(next === last && running ? undefined : next);
            }}
          />
        </label>
        <output aria-live="polite">
          {position} / {last}
          {events.data?.[position - 1] && ` — ${events.data[position - 1]!.event_type}`}
        </output>
        {replay.data && <StateAtPosition replay={replay.data} />}
        {replay.error && <p role="alert">{replay.error.message}</p>}
      </section>

      <h2>Graph</h2>
      {graph.data && <ExecutionGraph graph={graph.data.graph} progress={progressOf(replay.data)} />}
      <h2>Timeline</h2>
      {replay.data && <Timeline commands={Object.values(replay.data.state.commands ?? {})} until={replay.data.position.event_time} />}
      {events.data && <EventHistory events={events.data} position={position} />}
    </section>
  );
}

/** Step statuses and loop progress at the chosen event, for the graph. */
function progressOf(replay: ReplayAnswer | undefined): Record<string, StepProgress> {
  const progress: Record<string, StepProgress> = {};
  for (const s of Object.values(replay?.state.steps?.steps ?? {})) progress[s.step] = { status: s.status };
  for (const l of Object.values(replay?.state.loops ?? {})) {
    progress[l.step] = { ...progress[l.step], loop: { done: l.succeededRows + l.failedRows, total: l.size } };
  }
  return progress;
}

function StateAtPosition({ replay }: { replay: ReplayAnswer }) {
  const steps = Object.values(replay.state.steps?.steps ?? {});
  return (
    <div className="state-at">
      <p>
        Status at this event: <StatusBadge status={replay.state.execution?.status ?? 'RUNNING'} /> at {when(replay.position.event_time)}
        {replay.seeded_from_snapshot !== null && ` (folded from snapshot ${replay.seeded_from_snapshot})`}
      </p>
      <table aria-label="Steps at this event">
        <thead>
          <tr>
            <th>Step</th>
            <th>Status</th>
            <th>Attempts</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((s) => (
            <tr key={s.step}>
              <td>{s.step}</td>
              <td>
                <StatusBadge status={s.status} />
              </td>
              <td>{s.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Variables</summary>
        <pre>{JSON.stringify(replay.state.execution?.ctx ?? {}, null, 2)}</pre>
      </details>
      <details>
        <summary>Checksums</summary>
        <dl className="checksums" aria-label="Checksums">
          {Object.entries(replay.checksums).map(([surface, sum]) => (
            <div key={surface}>
              <dt>{surface}</dt>
              <dd>
                <code>{sum}</code>
              </dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
