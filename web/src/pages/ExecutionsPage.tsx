import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, data } from '../api/client';
import { duration, when } from '../components/format';
import { StatusBadge } from '../components/StatusBadge';

const STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
type Status = (typeof STATUSES)[number];
const PAGE = 25;
/** Polled every 2 s while the tab is visible (react-query pauses interval refetches in a hidden tab). */
const REFRESH_MS = 2000;

interface Filters {
  status?: Status;
  path?: string;
  parent?: string;
  started_after?: string;
  started_before?: string;
}

/** A datetime-local value (local time) as an ISO instant, or undefined when empty. */
const isoOf = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

export function ExecutionsPage() {
  const [filters, setFilters] = useState<Filters>({});
  // The cursors of the pages before this one: "Previous page" pops one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useQuery({
    queryKey: ['executions', filters, cursor],
    queryFn: () => data(api.GET('/api/executions', { params: { query: { ...filters, limit: PAGE, ...(cursor ? { cursor } : {}) } } })),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  const { status: _status, ...counted } = filters;
  const counts = useQuery({
    queryKey: ['executions', 'counts', counted],
    queryFn: () => data(api.GET('/api/executions/counts', { params: { query: counted } })),
    refetchInterval: REFRESH_MS,
  });
  const filter = (next: Filters) => {
    setFilters(next);
    setCursors([]);
  };

  return (
    <section>
      <h1>Executions</h1>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={filters.status ?? ''}
            onChange={(e) => filter({ ...filters, status: (e.target.value || undefined) as Status | undefined })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Playbook path
          <input defaultValue={filters.path} onBlur={(e) => filter({ ...filters, path: e.target.value.trim() || undefined })} />
        </label>
        <label>
          Parent execution
          <input defaultValue={filters.parent} onBlur={(e) => filter({ ...filters, parent: e.target.value.trim() || undefined })} />
        </label>
        <label>
          Started after
          <input type="datetime-local" onChange={(e) => filter({ ...filters, started_after: isoOf(e.target.value) })} />
        </label>
        <label>
          Started before
          <input type="datetime-local" onChange={(e) => filter({ ...filters, started_before: isoOf(e.target.value) })} />
        </label>
      </form>
      {counts.data && (
        <ul className="counts" aria-label="Counts per status">
          {STATUSES.map((s) => (
            <li key={s}>
              <button
                type="button"
                aria-pressed={filters.status === s}
                onClick={() => filter({ ...filters, status: filters.status === s ? undefined : s })}
              >
                <StatusBadge status={s} /> {counts.data[s]}
              </button>
            </li>
          ))}
        </ul>
      )}
      {page.error && <p role="alert">{page.error.message}</p>}
      <table>
        <thead>
          <tr>
            <th>Execution</th>
            <th>Playbook</th>
            <th>Status</th>
            <th>Started</th>
            <th>Duration</th>
            <th>Parent</th>
          </tr>
        </thead>
        <tbody>
          {page.data?.executions.map((e) => (
            <tr key={e.execution_id}>
              <td>
                <Link to={`/executions/${e.execution_id}`}>{e.execution_id}</Link>
              </td>
              <td>
                {e.path}@{e.version}
              </td>
              <td>
                <StatusBadge status={e.status} />
              </td>
              <td>{when(e.started_at)}</td>
              <td>{duration(e.started_at, e.completed_at)}</td>
              <td>{e.parent_execution_id && <Link to={`/executions/${e.parent_execution_id}`}>{e.parent_execution_id}</Link>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.data?.executions.length === 0 && <p>No executions.</p>}
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" disabled={!page.data?.next_cursor} onClick={() => setCursors([...cursors, page.data!.next_cursor!])}>
          Next page
        </button>
      </div>
    </section>
  );
}
