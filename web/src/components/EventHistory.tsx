import type { Schemas } from '../api/client';

/**
 * One page of the ledger: the page of the chosen event (the slider pages
 * through the rest), the chosen event marked, later ones dimmed, each
 * payload opening as JSON, and each position a button that moves the slider there.
 */
export function EventHistory({
  events,
  position,
  total,
  onChoose,
}: {
  events: Schemas['EventViewDto'][];
  position: number;
  total: number;
  onChoose(position: number): void;
}) {
  const first = events[0]?.position ?? 0;
  return (
    <table className="events">
      <caption>
        Event history: events {first}–{events.at(-1)?.position ?? first} of {total}
      </caption>
      <thead>
        <tr>
          <th>#</th>
          <th>Type</th>
          <th>Step</th>
          <th>Time</th>
          <th>Payload</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr
            key={e.event_id}
            aria-current={e.position === position ? 'step' : undefined}
            className={e.position > position ? 'future' : undefined}
          >
            <td>
              <button type="button" className="link" aria-label={`Go to event ${e.position}`} onClick={() => onChoose(e.position)}>
                {e.position}
              </button>
            </td>
            <td>{e.event_type}</td>
            <td>{e.step ?? ''}</td>
            <td>{new Date(e.created_at).toISOString().slice(11, 23)}</td>
            <td>
              {e.payload !== null && (
                <details>
                  <summary>JSON</summary>
                  <pre>{JSON.stringify(e.payload, null, 2)}</pre>
                </details>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
