import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, data } from '../api/client';

/** Cancel (after a confirmation) and send a signal: what a developer may do to a running execution. */
export function ExecutionActions({ executionId }: { executionId: string }) {
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [signal, setSignal] = useState({ name: '', payload: '{}' });
  const [invalid, setInvalid] = useState(false);
  const refresh = () => queries.invalidateQueries({ queryKey: ['execution', executionId] });
  const cancel = useMutation({
    mutationFn: () => data(api.POST('/api/executions/{id}/cancel', { params: { path: { id: executionId } }, body: { reason: 'cancelled from the web UI' } })),
    onSuccess: refresh,
  });
  const send = useMutation({
    mutationFn: (s: { name: string; payload: unknown }) =>
      data(api.POST('/api/executions/{id}/signals/{name}', { params: { path: { id: executionId, name: s.name } }, body: { payload: s.payload as Record<string, never> } })),
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
    <section className="actions" aria-label="Actions">
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
    </section>
  );
}
