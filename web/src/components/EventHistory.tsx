import type { Schemas } from '../api/client';

/** The ledger of the execution; the chosen position is marked, and each payload opens as JSON. */
export function EventHistory({ events, position }: { events: Schemas['EventViewDto'][]; position: number }) {
  return (
    <table className="events">
      <caption>Event history</caption>
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
        {events.map((e, i) => (
          <tr key={e.event_id} aria-current={i + 1 === position ? 'step' : undefined} className={i + 1 > position ? 'future' : undefined}>
            <td>{i + 1}</td>
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
