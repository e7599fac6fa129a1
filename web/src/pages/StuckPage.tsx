import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data, type Schemas } from '../api/client';
import { when } from '../components/format';

type Stuck = Schemas['StuckWorkDto'];
const REASON = { reason: 'from the web UI' };

/** The admin module's stuck commands and frames, with reclaim, fail and finalize. */
export function StuckPage() {
  const queries = useQueryClient();
  const stuck = useQuery({ queryKey: ['stuck'], queryFn: () => data(api.GET('/api/admin/stuck')), refetchInterval: 5000 });
  const act = useMutation({
    mutationFn: ({ work, action }: { work: Stuck; action: 'reclaim' | 'fail' | 'finalize' }) => {
      const id = { params: { path: { id: work.id } } };
      if (action === 'finalize')
        return data(api.POST('/api/admin/executions/{id}/finalize', { params: { path: { id: work.execution_id } }, body: REASON }));
      if (work.kind === 'command') {
        return action === 'reclaim'
          ? data(api.POST('/api/admin/commands/{id}/reclaim', { ...id, body: REASON }))
          : data(api.POST('/api/admin/commands/{id}/fail', { ...id, body: REASON }));
      }
      return action === 'reclaim'
        ? data(api.POST('/api/admin/frames/{id}/reclaim', { ...id, body: REASON }))
        : data(api.POST('/api/admin/frames/{id}/fail', { ...id, body: REASON }));
    },
    onSettled: () => queries.invalidateQueries({ queryKey: ['stuck'] }),
  });

  return (
    <section>
      <h1>Stuck work</h1>
      {stuck.error && <p role="alert">{stuck.error.message}</p>}
      {act.error && <p role="alert">{act.error.message}</p>}
      {act.isSuccess && <p role="status">Done.</p>}
      <table>
        <thead>
          <tr>
            <th>Kind</th>
            <th>Id</th>
            <th>Execution</th>
            <th>Step</th>
            <th>Attempt</th>
            <th>Worker</th>
            <th>Lease until</th>
            <th>Why</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {stuck.data?.stuck.map((w) => (
            <tr key={`${w.kind}-${w.id}`}>
              <td>{w.kind}</td>
              <td>{w.id}</td>
              <td>{w.execution_id}</td>
              <td>{w.step}</td>
              <td>
                {w.attempt}/{w.max_attempts}
              </td>
              <td>{w.worker_id ?? '—'}</td>
              <td>{when(w.lease_until)}</td>
              <td>{w.reason}</td>
              <td>
                <button type="button" onClick={() => act.mutate({ work: w, action: 'reclaim' })}>
                  Reclaim {w.kind} {w.id}
                </button>{' '}
                <button type="button" onClick={() => act.mutate({ work: w, action: 'fail' })}>
                  Fail {w.kind} {w.id}
                </button>{' '}
                <button type="button" className="danger" onClick={() => act.mutate({ work: w, action: 'finalize' })}>
                  Finalize execution {w.execution_id}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {stuck.data?.stuck.length === 0 && <p>Nothing is stuck.</p>}
    </section>
  );
}
