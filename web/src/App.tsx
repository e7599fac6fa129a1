import { useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { session } from './api/session';
import { CatalogPage } from './pages/CatalogPage';
import { ExecutionPage } from './pages/ExecutionPage';
import { ExecutionsPage } from './pages/ExecutionsPage';
import { SchedulesPage } from './pages/SchedulesPage';
import { OidcCallbackPage, SignInPage } from './pages/SignInPage';
import { StuckPage } from './pages/StuckPage';
import { WorkersPage } from './pages/WorkersPage';
import { setTheme, type Theme, THEMES, useTheme } from './theme';

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/sign-in/callback" element={<OidcCallbackPage />} />
      <Route path="*" element={<SignedIn />} />
    </Routes>
  );
}

/** The pages behind a key: without one, or once a call answers 401, the sign-in form (which returns here after). */
function SignedIn() {
  const location = useLocation();
  const navigate = useNavigate();
  const queries = useQueryClient();
  useEffect(
    () =>
      session.onSignOut(() => {
        queries.clear();
        navigate('/sign-in', { state: { from: location.pathname + location.search } });
      }),
    [location, navigate, queries],
  );
  if (!session.key()) return <Navigate to="/sign-in" state={{ from: location.pathname + location.search }} replace />;
  return (
    <Layout>
      <Routes>
        <Route path="/" element={<Navigate to="/executions" replace />} />
        <Route path="/executions" element={<ExecutionsPage />} />
        <Route path="/executions/:id" element={<ExecutionPage />} />
        <Route path="/operations/stuck" element={<StuckPage />} />
        <Route path="/operations/workers" element={<WorkersPage />} />
        <Route path="/operations/schedules" element={<SchedulesPage />} />
        <Route path="/catalog" element={<CatalogPage />} />
        <Route path="*" element={<p role="alert">No such page.</p>} />
      </Routes>
    </Layout>
  );
}

function Layout({ children }: { children: ReactNode }) {
  const theme = useTheme();
  return (
    <>
      <header className="top">
        <strong>NoETL</strong>
        <nav aria-label="Main">
          <NavLink to="/executions">Executions</NavLink>
          <NavLink to="/operations/stuck">Stuck</NavLink>
          <NavLink to="/operations/workers">Workers</NavLink>
          <NavLink to="/operations/schedules">Schedules</NavLink>
          <NavLink to="/catalog">Catalog</NavLink>
        </nav>
        <label className="inline">
          Theme
          <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
            {THEMES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <main>{children}</main>
    </>
  );
}
