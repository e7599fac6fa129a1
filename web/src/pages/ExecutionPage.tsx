import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, data } from '../api/client';
import { replayAt, type ReplayAnswer } from '../api/replay';
import { useMe } from '../api/me';
import { EventHistory } from '../components/EventHistory';
import { ExecutionActions } from '../components/ExecutionActions';
import { ExecutionGraph, type StepProgress } from '../components/ExecutionGraph';
import { duration, when } from '../components/format';
import { StatusBadge } from '../components/StatusBadge';
import { TimeTravel } from '../components/TimeTravel';
import { Timeline } from '../components/Timeline';

const REFRESH_MS = 1000;
const HISTORY_PAGE = 50;

export function ExecutionPage() {
  const { id = '' } = useParams();
  const me = useMe();
  const detail = useQuery({
    queryKey: ['execution', id],
    queryFn: () => data(api.GET('/api/executions/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data?.status === 'RUNNING' ? REFRESH_MS : false),
  });
  const running = detail.data?.status === 'RUNNING';
  const follow = running ? REFRESH_MS : false;
  // In the keys of what is polled while it runs: the answers after its end are read once more, then kept.
  const status = detail.data?.status;
  // The state after the last event (seeded from the latest snapshot): its position is the slider's end.
  const latest = useQuery({
    queryKey: ['execution', id, 'replay', 'latest', status],
    queryFn: () => replayAt(id),
    enabled: status !== undefined,
    refetchInterval: follow,
  });
  const graph = useQuery({
    queryKey: ['playbook', detail.data?.path, detail.data?.version],
    queryFn: () =>
      data(api.GET('/api/catalog/playbook', { params: { query: { path: detail.data!.path, version: detail.data!.version } } })),
    enabled: detail.data !== undefined,
    staleTime: Infinity,
  });
  const children = useQuery({
    queryKey: ['execution', id, 'children'],
    queryFn: () => data(api.GET('/api/executions', { params: { query: { parent: id, limit: 100 } } })),
    refetchInterval: follow,
  });
  const timeline = useQuery({
    queryKey: ['execution', id, 'timeline', status],
    queryFn: () => data(api.GET('/api/executions/{id}/timeline', { params: { path: { id } } })),
    enabled: status !== undefined,
    refetchInterval: follow,
  });

  // The scrubber's position: undefined follows the last event.
  const [chosen, setChosen] = useState<number>();
  const last = latest.data?.position.stream_version ?? 0;
  const position = Math.min(chosen ?? last, last);
  const pinned = useQuery({
    queryKey: ['execution', id, 'replay', position],
    queryFn: () => replayAt(id, position),
    enabled: position > 0 && position < last,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  const replay = position < last ? (pinned.data ?? latest.data) : latest.data;
  const historyFrom = Math.max(0, Math.floor((position - 1) / HISTORY_PAGE) * HISTORY_PAGE);
  const history = useQuery({
    queryKey: ['execution', id, 'events', historyFrom, status],
    queryFn: () =>
      data(
        api.GET('/api/executions/{id}/events', { params: { path: { id }, query: { after_position: historyFrom, limit: HISTORY_PAGE } } }),
      ),
    enabled: last > 0,
    refetchInterval: historyFrom + HISTORY_PAGE >= last ? follow : false,
    placeholderData: keepPreviousData,
  });
  const choose = (next: number) => setChosen(next === last && running ? undefined : next);

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
      {me.mayAct && <ExecutionActions execution={e} />}

      <TimeTravel
        executionId={e.execution_id}
        last={last}
        position={position}
        eventType={history.data?.events.find((ev) => ev.position === position)?.event_type}
        replay={replay}
        onChoose={choose}
      />
      {(latest.error ?? pinned.error) && <p role="alert">{(latest.error ?? pinned.error)!.message}</p>}

      <h2>Graph</h2>
      {graph.data && <ExecutionGraph graph={graph.data.graph} progress={progressOf(replay)} />}
      <h2>Timeline</h2>
      {timeline.data && replay && <Timeline bars={timeline.data.bars} position={position} until={replay.position.event_time} />}
      {history.data && <EventHistory events={history.data.events} position={position} total={last} onChoose={choose} />}
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
