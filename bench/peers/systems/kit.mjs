// The peers' side of bench/peers/protocol.ts: read the task, time the
// workload between the system's start and stop, answer the RunReport.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The installed version of `pkg` (from its package.json, found through its entry point). */
export function versionOf(pkg) {
  const require = createRequire(import.meta.url);
  let dir = require.resolve(pkg);
  for (;;) {
    dir = dir.slice(0, dir.lastIndexOf('/'));
    try {
      const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
      if (manifest.name === pkg) return manifest.version;
    } catch {
      // not the package's root yet
    }
  }
}

/** A promise and the function that settles it once `total` calls have been made. */
export function countdown(total) {
  let left = total;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  if (left <= 0) done();
  return {
    finished,
    tick() {
      if (--left === 0) done();
    },
  };
}

/**
 * Runs the system's side of one task: `system.start(task)` (returns the
 * running system), then in the run phase only `running.run(workload)` timed,
 * then `running.stop()`. The run phase reports over IPC; a failure exits 1.
 */
export async function serve(system) {
  const task = JSON.parse(process.argv[2]);
  try {
    const running = await system.start(task);
    let report;
    try {
      if (task.phase === 'run') {
        const began = performance.now();
        const shape = await running.run(task.workload);
        report = { version: system.version, wallMs: performance.now() - began, shape };
      }
    } finally {
      await running.stop();
    }
    if (report) await new Promise((resolve, reject) => process.send({ ...report, maxRssKb: process.resourceUsage().maxRSS }, (error) => (error ? reject(error) : resolve())));
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  }
}
