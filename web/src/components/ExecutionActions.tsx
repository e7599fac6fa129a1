import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, data, type Schemas } from '../api/client';

/**
 * What a developer may do to an execution: re-run it with the same payload
 * (its path, version and workload, as POST /api/execute takes them), and
 * while it runs, cancel it (after a confirmation) and send it a signal.
 */
export function ExecutionActions({ execution }: { execution: Schemas['ExecutionDetailDto'] }) {
  const executionId = execution.execution_id;
  const queries = useQueryClient();
  const rerun = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/execute', {
          body: { path: execution.path, version: execution.version, payload: execution.workload as Record<string, never> },
        }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['executions'] }),
  });
  return (
    <section className="actions" aria-label="Actions">
      <span>
        <button type="button" onClick={() => rerun.mutate()} disabled={rerun.isPending}>
          Re-run
        </button>
        {rerun.data && (
          <span role="status">
            {' '}
            Re-run started: <Link to={`/executions/${rerun.data.execution_id}`}>{rerun.data.execution_id}</Link>
          </span>
        )}
        {rerun.error && <span role="alert"> {rerun.error.message}</span>}
      </span>
      {execution.status === 'RUNNING' && <RunningActions executionId={executionId} />}
    </section>
  );
}

/** Cancel (after a confirmation) and send a signal. */
function RunningActions({ executionId }: { executionId: string }) {
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [signal, setSignal] = useState({ name: '', payload: '{}' });
  const [invalid, setInvalid] = useState(false);
  const refresh = () => queries.invalidateQueries({ queryKey: ['execution', executionId] });
  const cancel = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/executions/{id}/cancel', { params: { path: { id: executionId } }, body: { reason: 'cancelled from the web UI' } }),
      ),
    onSuccess: refresh,
  });
  const send = useMutation({
    mutationFn: (s: { name: string; payload: unknown }) =>
      data(
        api.POST('/api/executions/{id}/signals/{name}', {
          params: { path: { id: executionId, name: s.name } },
          body: { payload: s.payload as Record<string, never> },
        }),
      ),
    onSuccess: refresh,
  });
  function sendSignal(event: FormEvent) {
    event.preventDefault();
    let payload: unknown;
    try {
      payload = JSON.parse(signal.payload);
    } catch {
      setInvalid(true);
      return;
    }
    send.mutate({ name: signal.name.trim(), payload });
  }
  return (
    <>
      {!confirming ? (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Cancel
        </button>
      ) : (
        <span role="group" aria-label="Confirm cancellation">
          Cancel this execution?{' '}
          <button type="button" className="danger" onClick={() => cancel.mutate()}>
            Yes, cancel it
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it running
          </button>
        </span>
      )}
      {cancel.error && <p role="alert">{cancel.error.message}</p>}
      <form onSubmit={sendSignal} aria-label="Send a signal">
        <label>
          Signal name
          <input required value={signal.name} onChange={(e) => setSignal({ ...signal, name: e.target.value })} />
        </label>
        <label>
          Signal payload (JSON)
          <textarea
            rows={1}
            value={signal.payload}
            onChange={(e) => {
              setInvalid(false);
              setSignal({ ...signal, payload: e.target.value });
            }}
          />
        </label>
        <button type="submit">Send signal</button>
        {invalid && <p role="alert">The payload is not JSON.</p>}
        {send.error && <p role="alert">{send.error.message}</p>}
        {send.isSuccess && <p role="status">Signal sent.</p>}
      </form>
    </>
  );
}
