import { shownDropped } from './shown-dropped';

describe('shownDropped', () => {
  it('shows a dropped notification as the start of its JSON', () => {
    expect(shownDropped({ command_id: '7', tenant_id: 't' })).toBe('{"command_id":"7","tenant_id":"t"}');
    expect(shownDropped({ junk: 'x'.repeat(500) })).toHaveLength(200);
  });

  it('shows what JSON cannot', () => {
    expect(shownDropped(undefined)).toBe('undefined');
  });
});
