import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, data } from '../api/client';
import { finishOidcSignIn, startOidcSignIn } from '../api/oidc';
import { session } from '../api/session';

/** Whether the key or token is one the API takes (GET /api/auth/me): a message when not. */
async function refusal(key: string): Promise<string | undefined> {
  const answer = await fetch('/api/auth/me', { headers: { Authorization: `Bearer ${key}` } });
  if (answer.ok) return undefined;
  return answer.status === 401 ? 'That key was refused.' : `The server answered ${answer.status}.`;
}

/**
 * Checks the key before keeping it, then returns to the page that asked for
 * it. When the server has OIDC configured for the web UI, the identity
 * provider is offered as well.
 */
export function SignInPage() {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string>();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/executions';
  const options = useQuery({
    queryKey: ['sign-in-options'],
    queryFn: () => data(api.GET('/api/auth/sign-in-options')),
    staleTime: Infinity,
  });
  const oidc = options.data?.oidc;

  async function signIn(event: FormEvent) {
    event.preventDefault();
    const refused = await refusal(key.trim());
    if (refused) return setProblem(refused);
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
      {oidc && (
        // Not named "Sign in ...": that name is the key form's button, which tests and users find by it.
        <button type="button" onClick={() => startOidcSignIn(oidc, from).catch((error: Error) => setProblem(error.message))}>
          Continue with {new URL(oidc.issuer).host}
        </button>
      )}
      <p className="hint">
        The server wrote its first admin key to <code>~/.noetl/admin.key</code>; <code>noetl keys create</code> makes more.
      </p>
    </main>
  );
}

/** Where the identity provider sends the browser back: the code becomes a token, kept for the tab like a key. */
export function OidcCallbackPage() {
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string>();
  // Once: the code in the URL is good for one exchange (StrictMode runs an effect twice in development).
  const exchanged = useRef(false);
  useEffect(() => {
    if (exchanged.current) return;
    exchanged.current = true;
    finishOidcSignIn(new URL(window.location.href))
      .then(async ({ token, from }) => {
        const refused = await refusal(token);
        if (refused) return setProblem(`The identity provider's token was refused: ${refused}`);
        session.signIn(token);
        navigate(from, { replace: true });
      })
      .catch((error: Error) => setProblem(error.message));
  }, [navigate]);
  return <main className="sign-in">{problem ? <p role="alert">{problem}</p> : <p>Signing in…</p>}</main>;
}
