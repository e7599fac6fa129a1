import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../api/client';
import type { ReplayAnswer } from '../api/replay';
import { when } from './format';
import { StatusBadge } from './StatusBadge';

/** Changes listed at most; a diff across a loop of thousands of frames says how many more there are. */
const CHANGES_SHOWN = 200;

interface Props {
  executionId: string;
  last: number;
  position: number;
  /** The type of the event at `position`, when its page of the history is loaded. */
  eventType: string | undefined;
  replay: ReplayAnswer | undefined;
  onChoose(position: number): void;
}

/** The slider "Event position" over the ledger, the state after the chosen event, and the diff mode that compares it with another position. */
export function TimeTravel({ executionId, last, position, eventType, replay, onChoose }: Props) {
  const [diffFrom, setDiffFrom] = useState<number>();
  const comparing = diffFrom !== undefined;
  return (
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
          onChange={(e) => onChoose(Number(e.target.value))}
        />
      </label>
      <output aria-live="polite">
        {position} / {last}
        {eventType && ` — ${eventType}`}
      </output>
      <label className="inline">
        <input
          type="checkbox"
          checked={comparing}
          onChange={(e) => setDiffFrom(e.target.checked ? Math.max(1, Math.min(position - 1, last)) : undefined)}
        />
        Diff mode: compare two positions
      </label>
      {comparing && (
        <label>
          Compare from position
          <input type="range" min={1} max={last} value={diffFrom} onChange={(e) => setDiffFrom(Number(e.target.value))} />
        </label>
      )}
      {comparing ? <StateDiff executionId={executionId} from={diffFrom} to={position} /> : replay && <StateAtPosition replay={replay} />}
    </section>
  );
}

function StateDiff({ executionId, from, to }: { executionId: string; from: number; to: number }) {
  const diff = useQuery({
    queryKey: ['execution', executionId, 'diff', from, to],
    queryFn: () =>
      data(api.GET('/api/replay/diff', { params: { query: { execution_id: executionId, from_position: from, to_position: to } } })),
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  if (diff.error) return <p role="alert">{diff.error.message}</p>;
  if (!diff.data) return <p>Comparing…</p>;
  const { changes } = diff.data;
  return (
    <div className="state-at">
      <p>
        Changes from event {diff.data.from.stream_version} to event {diff.data.to.stream_version}: {changes.length}
        {changes.length > CHANGES_SHOWN && ` (the first ${CHANGES_SHOWN} shown)`}
      </p>
      <table aria-label="Changes between the two positions">
        <thead>
          <tr>
            <th>Path</th>
            <th>Before</th>
            <th>After</th>
          </tr>
        </thead>
        <tbody>
          {changes.slice(0, CHANGES_SHOWN).map((c) => (
            <tr key={c.path}>
              <td>
                <code>{c.path}</code>
              </td>
              <td>{'before' in c ? <code>{JSON.stringify(c.before)}</code> : <em>none</em>}</td>
              <td>{'after' in c ? <code>{JSON.stringify(c.after)}</code> : <em>none</em>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function StateAtPosition({ replay }: { replay: ReplayAnswer }) {
  const steps = Object.values(replay.state.steps?.steps ?? {});
  return (
    <div className="state-at">
      <p>
        Status after event {replay.position.stream_version}: <StatusBadge status={replay.state.execution?.status ?? 'RUNNING'} /> at{' '}
        {when(replay.position.event_time)}
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
