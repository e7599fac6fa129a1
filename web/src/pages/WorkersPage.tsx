import { useQuery } from '@tanstack/react-query';
import { api, data } from '../api/client';
import { when } from '../components/format';
import { StatusBadge } from '../components/StatusBadge';

export function WorkersPage() {
  const workers = useQuery({ queryKey: ['workers'], queryFn: () => data(api.GET('/api/workers')), refetchInterval: 5000 });
  return (
    <section>
      <h1>Workers</h1>
      {workers.error && <p role="alert">{workers.error.message}</p>}
      <table>
        <thead>
          <tr>
            <th>Worker</th>
            <th>Node</th>
            <th>Pool</th>
            <th>Tools</th>
            <th>Slots</th>
            <th>Free</th>
            <th>Status</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {workers.data?.workers.map((w) => (
            <tr key={w.worker_id}>
              <td>{w.worker_id}</td>
              <td>{w.node}</td>
              <td>{w.pool ?? '—'}</td>
              <td>{w.tools?.join(', ') ?? 'any'}</td>
              <td>{w.slots}</td>
              <td>{w.free_slots}</td>
              <td>
                <StatusBadge status={w.status} />
              </td>
              <td>{when(w.last_seen_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {workers.data?.workers.length === 0 && <p>No workers.</p>}
    </section>
  );
}
