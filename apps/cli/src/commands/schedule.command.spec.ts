import { OVERLAP_POLICIES } from '@noetl/dsl';
import { OVERLAP_HELP } from './schedule.command';

describe('noetl schedule', () => {
  it("names every overlap policy in create's --overlap help", () => {
    expect(OVERLAP_HELP.split(/, | or /)).toEqual([...OVERLAP_POLICIES]);
  });
});
