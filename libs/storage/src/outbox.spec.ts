import { eventSubject } from './outbox';

describe('eventSubject', () => {
  it('names an execution under noetl.events.<tenant>.<execution>', () => {
    expect(eventSubject('default', '123')).toBe('noetl.events.default.123');
  });

  it('keeps separators and wildcards out of the tokens', () => {
    expect(eventSubject('acme.eu *>', '1')).toBe('noetl.events.acme_eu___.1');
    expect(eventSubject('', '1')).toBe('noetl.events._.1');
  });
});
