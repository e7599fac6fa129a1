import { API_KEY_ROLES } from '@noetl/storage';
import { KEY_ROLES_HELP } from './keys.command';

describe('noetl keys', () => {
  it("names every role of an API key in create's --role help", () => {
    const named = KEY_ROLES_HELP.split(/, | or /);
    expect(named).toEqual([...API_KEY_ROLES]);
  });
});
