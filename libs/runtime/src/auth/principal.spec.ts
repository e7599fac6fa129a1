import { allows, type Access, type Role } from './principal';

describe('allows', () => {
  const roles: Role[] = ['viewer', 'developer', 'operator', 'admin', 'worker'];

  it('lets each role do what the roles below it may, and no more', () => {
    const table = (access: Access) => roles.filter((role) => allows(role, access));
    expect(table('viewer')).toEqual(['viewer', 'developer', 'operator', 'admin']);
    expect(table('developer')).toEqual(['developer', 'operator', 'admin']);
    expect(table('operator')).toEqual(['operator', 'admin']);
    expect(table('admin')).toEqual(['admin']);
  });

  it('keeps the worker role to the control plane: no admin stands in for a worker, no worker reads the API', () => {
    expect(roles.filter((role) => allows(role, 'worker'))).toEqual(['worker']);
    expect(allows('worker', 'viewer')).toBe(false);
  });

  it('lets every authenticated caller, workers too, reach an `authenticated` route, and anyone a public one', () => {
    for (const role of roles) {
      expect(allows(role, 'authenticated')).toBe(true);
      expect(allows(role, 'public')).toBe(true);
    }
  });
});
