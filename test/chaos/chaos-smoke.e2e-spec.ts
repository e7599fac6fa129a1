import { runChaos } from './run-chaos';
import { SCENARIOS } from './scenarios';

// Services, five role processes, and two short trials of every scenario (faults shrunk to the smoke's size):
// about 3 minutes on two idle cores; the budget leaves room for a loaded machine.
jest.setTimeout(600_000);

/**
 * The chaos harness's 2-trial smoke (issue 14): every scenario's fault
 * injected twice into a deployment of separate role processes, and the
 * ledger and sink checked. The full run with figures is `npm run chaos`.
 */
describe('chaos smoke', () => {
  it("loses, duplicates and strands nothing under any scenario's fault, and projections equal a replay", async () => {
    const results = await runChaos({
      scenarios: SCENARIOS,
      trials: 2,
      seed: 1,
      smoke: true,
      soakMinutes: 1,
      pages: 100,
      log: () => undefined,
    });
    const summary = results.map((r) => ({
      scenario: r.scenario,
      trials: r.trials,
      lost: r.lost,
      duplicated: r.duplicated,
      stuck: r.stuck,
      wrongOutcome: r.wrongOutcome,
      projectionMismatches: r.projectionMismatches,
      violations: r.violations,
    }));
    expect(summary).toEqual(
      SCENARIOS.map((s) => ({
        scenario: s.name,
        trials: s.once ? 1 : 2,
        lost: 0,
        duplicated: 0,
        stuck: 0,
        wrongOutcome: 0,
        projectionMismatches: 0,
        violations: [],
      })),
    );
  });
});
