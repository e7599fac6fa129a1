import { useQuery } from '@tanstack/react-query';
import { api, data, type Schemas } from './client';

type Role = Schemas['PrincipalDto']['role'];
/** The roles that may execute, cancel and signal (README: Authentication and tenants). */
const DEVELOPERS: readonly Role[] = ['developer', 'operator', 'admin'];
/** The roles that may use the admin routes: stuck work, reclaim, fail, finalize. */
const OPERATORS: readonly Role[] = ['operator', 'admin'];

/** Who the tab's key stands for (GET /api/auth/me), and what its role may do; a control the role may not use is not shown. */
export function useMe() {
  const me = useQuery({ queryKey: ['me'], queryFn: () => data(api.GET('/api/auth/me')), staleTime: Infinity });
  const role = me.data?.role;
  return { role, mayAct: role !== undefined && DEVELOPERS.includes(role), mayOperate: role !== undefined && OPERATORS.includes(role) };
}
