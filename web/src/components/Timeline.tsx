import type { ReplayCommand } from '../api/replay';

/**
 * A Gantt of the commands at the chosen event: one bar per attempt, from its
 * issue to its end (or to the chosen event while it runs), with its worker.
 * A CSS grid: the chart libraries at hand draw time series, not Gantt bars,
 * and a bar is two numbers.
 */
export function Timeline({ commands, until }: { commands: ReplayCommand[]; until: string }) {
  if (commands.length === 0) return <p>No commands yet.</p>;
  const end = Date.parse(until);
  const start = Math.min(...commands.map((c) => Date.parse(c.issuedAt)));
  const span = Math.max(end - start, 1);
  const sorted = [...commands].sort((a, b) => a.issuedAt.localeCompare(b.issuedAt) || a.commandId.localeCompare(b.commandId));
  return (
    <ol className="timeline" aria-label="Timeline">
      {sorted.map((c) => {
        const from = Date.parse(c.issuedAt) - start;
        const to = (c.completedAt ? Date.parse(c.completedAt) : end) - start;
        const name = `${c.step}${c.iteration !== undefined ? `[${c.iteration}]` : ''} attempt ${c.attempt}/${c.maxAttempts}`;
        return (
          <li key={c.commandId}>
            <span className="label">{name}</span>
            <span className="track">
              <span
                className={`bar status-${c.status}`}
                style={{ left: `${(from / span) * 100}%`, width: `${Math.max(((to - from) / span) * 100, 0.5)}%` }}
                title={`${name}: ${c.status}, ${to - from} ms on ${c.workerId ?? 'no worker yet'}`}
              />
            </span>
            <span className="worker">{c.workerId ?? '—'}</span>
          </li>
        );
      })}
    </ol>
  );
}
