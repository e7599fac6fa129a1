import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { session } from '../api/session';

/** Checks the key with GET /api/auth/me before keeping it, then returns to the page that asked for it. */
export function SignInPage() {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string>();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/executions';

  async function signIn(event: FormEvent) {
    event.preventDefault();
    const answer = await fetch('/api/auth/me', { headers: { Authorization: `Bearer ${key.trim()}` } });
    if (!answer.ok) {
      setProblem(answer.status === 401 ? 'That key was refused.' : `The server answered ${answer.status}.`);
      return;
    }
    session.signIn(key.trim());
    navigate(from, { replace: true });
  }

  return (
    <main className="sign-in">
      <h1>NoETL execution explorer</h1>
      <form onSubmit={signIn}>
        <label>
          API key
          <input type="password" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} />
        </label>
        <button type="submit">Sign in</button>
        {problem && <p role="alert">{problem}</p>}
      </form>
      <p className="hint">
        The server wrote its first admin key to <code>~/.noetl/admin.key</code>; <code>noetl keys create</code> makes more.
      </p>
    </main>
  );
}
