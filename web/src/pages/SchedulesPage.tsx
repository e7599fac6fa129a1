import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, data } from '../api/client';
import { when } from '../components/format';

export function SchedulesPage() {
  const queries = useQueryClient();
  const schedules = useQuery({ queryKey: ['schedules'], queryFn: () => data(api.GET('/api/schedules')), refetchInterval: 5000 });
  const refresh = () => queries.invalidateQueries({ queryKey: ['schedules'] });
  const pause = useMutation({
    mutationFn: ({ id, paused }: { id: string; paused: boolean }) =>
      data(api.PATCH('/api/schedules/{id}', { params: { path: { id } }, body: { paused } })),
    onSettled: refresh,
  });
  const trigger = useMutation({
    mutationFn: (id: string) => data(api.POST('/api/schedules/{id}/trigger', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const started = trigger.data as { execution_id?: string } | undefined;

  return (
    <section>
      <h1>Schedules</h1>
      {schedules.error && <p role="alert">{schedules.error.message}</p>}
      {(pause.error ?? trigger.error) && <p role="alert">{(pause.error ?? trigger.error)!.message}</p>}
      {started?.execution_id && (
        <p role="status">
          Started <Link to={`/executions/${started.execution_id}`}>{started.execution_id}</Link>
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th>Playbook</th>
            <th>When</th>
            <th>Overlap</th>
            <th>Next fire</th>
            <th>State</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {schedules.data?.schedules.map((s) => (
            <tr key={s.schedule_id}>
              <td>
                {s.path}
                {s.version !== null && `@${s.version}`}
              </td>
              <td>{s.cron ? `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ''}` : `every ${s.interval_seconds} s`}</td>
              <td>{s.overlap}</td>
              <td>{when(s.next_fire_time)}</td>
              <td>{s.paused ? 'paused' : 'active'}</td>
              <td>
                <button type="button" onClick={() => pause.mutate({ id: s.schedule_id, paused: !s.paused })}>
                  {s.paused ? 'Resume' : 'Pause'} {s.path}
                </button>{' '}
                <button type="button" onClick={() => trigger.mutate(s.schedule_id)}>
                  Trigger {s.path}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {schedules.data?.schedules.length === 0 && <p>No schedules.</p>}
    </section>
  );
}
