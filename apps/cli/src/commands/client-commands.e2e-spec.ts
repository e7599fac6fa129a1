import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startApiTestApp, type ApiTestApp } from '../../../../libs/roles/src/api/testing/api-test-app';
import { ServerClient } from '../shared/server-client';
import { captureOutput } from '../shared/testing/capture-output';
import { printEvents } from './events.command';
import { registerFiles } from './register.command';
import { showReplay } from './replay.command';
import { createSchedule, listSchedules, setPaused } from './schedule.command';
import { sendSignal } from './signal.command';
import { showStatus } from './status.command';
import { listWorkers } from './workers.command';

const hello = resolve(__dirname, '../../../../examples/hello.yaml');
const approval = resolve(__dirname, '../../../../examples/approval.yaml');

describe('noetl client commands against a running server', () => {
  let api: ApiTestApp;
  let client: ServerClient;
  let scratch: string;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker' });
    await api.app.listen(0, '127.0.0.1');
    client = new ServerClient(`http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`);
    scratch = mkdtempSync(join(tmpdir(), 'noetl-cli-'));
  });

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await api?.close();
  });

  it('registers, executes, watches to completion and lists the events of a playbook', async () => {
    const registered = captureOutput();
    expect(await registerFiles([hello], client, registered)).toBe(0);
    expect(registered.stdout).toEqual([expect.stringMatching(/^examples\/hello v1 \d+ \(.*hello\.yaml\)$/)]);

    const { execution_id: id } = await client.execute({ path: 'examples/hello', payload: { name: 'Ada' } });
    const watched = captureOutput();
    expect(await showStatus(id, client, { watch: true }, watched)).toBe(0);
    expect(JSON.parse(watched.stdout.at(-1)!)).toEqual({ message: 'Hello, Ada!', letters: 3 });

    const paged = captureOutput();
    await printEvents(id, client, { all: true, limit: 2 }, paged);
    expect(paged.stdout[0]).toMatch(/ execution\.started$/);
    expect(paged.stdout.at(-1)).toMatch(/ execution\.completed status=COMPLETED$/);
    const onePage = captureOutput();
    await printEvents(id, client, { limit: 1000 }, onePage);
    expect(paged.stdout).toEqual(onePage.stdout);
    const exits = captureOutput();
    await printEvents(id, client, { type: ['step.exit'] }, exits);
    expect(exits.stdout.map((line) => line.split(' ')[3])).toEqual(['step=start', 'step=greet', 'step=end']);
  });

  it('replays an execution as of an event, and shows what changed between two events', async () => {
    await registerFiles([hello], client, captureOutput());
    const { execution_id: id } = await client.execute({ path: 'examples/hello', payload: { name: 'Grace' } });
    expect(await showStatus(id, client, { watch: true }, captureOutput())).toBe(0);
    const { events } = await client.events(id, { limit: 1000 });
    const started = events[0]!.event_id;
    const last = events.at(-1)!.event_id;

    const printed = captureOutput();
    expect(await showReplay(id, client, { at: [started] }, printed)).toBe(0);
    expect(printed.stdout[0]).toMatch(new RegExp(`^execution ${id} as of event ${started} \\(#1, `));
    expect(printed.stdout[0]).toMatch(/ {2}all {7}[0-9a-f]{64}/);

    const diff = captureOutput();
    expect(await showReplay(id, client, { at: [started, last], diff: true }, diff)).toBe(0);
    expect(diff.stdout[0]).toBe(`execution ${id}: event ${started} (#1) -> ${last} (#${events.length})`);
    expect(diff.stdout).toContain('  execution.status: "RUNNING" -> "COMPLETED"');
    await expect(showReplay(id, client, { at: [started], diff: true }, captureOutput())).rejects.toThrow('--diff compares two points');
  });

  it("prints a rejected playbook's problems as file:line:column and exits 1", async () => {
    const file = join(scratch, 'invalid.yaml');
    writeFileSync(file, 'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: bad}\nworkflow:\n  - step: start\n    next: nowhere\n');
    const output = captureOutput();
    expect(await registerFiles([file], client, output)).toBe(1);
    expect(output.stderr).toEqual([`${file}:6:11 workflow[0].next unknown step "nowhere"`]);
  });

  it("passes on the server's error code and message", async () => {
    await expect(client.execution('12345')).rejects.toThrow('not_found: execution 12345 not found (HTTP 404)');
  });

  it('says clearly when no server answers at the URL', async () => {
    await expect(new ServerClient('http://127.0.0.1:1').execution('1')).rejects.toThrow(
      /^no NoETL server is reachable at http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED/,
    );
  });

  it('creates, lists, pauses, resumes, triggers and deletes a schedule', async () => {
    await registerFiles([hello], client, captureOutput());
    const created = captureOutput();
    const schedule = await createSchedule(
      client,
      'examples/hello',
      { cron: '0 6 * * 1-5', timezone: 'America/Chicago', set: { name: 'Cron' }, paused: true },
      created,
    );
    expect(created.stdout).toEqual([`${schedule.schedule_id} examples/hello cron "0 6 * * 1-5" America/Chicago paused`]);

    const listed = captureOutput();
    await listSchedules(client, { json: false, path: 'examples/hello' }, listed);
    expect(listed.stdout[0]).toMatch(/^ID\s+PATH\s+WHEN\s+OVERLAP\s+NEXT\s+FIRED\s+SKIPPED\s+LAST EXECUTION$/);
    expect(listed.stdout[1]).toMatch(
      new RegExp(`^${schedule.schedule_id}\\s+examples/hello\\s+cron "0 6 \\* \\* 1-5" America/Chicago\\s+skip\\s+paused\\s+0\\s+0\\s+-$`),
    );

    const resumed = captureOutput();
    await setPaused(client, schedule.schedule_id, false, resumed);
    expect(resumed.stdout).toEqual([expect.stringMatching(new RegExp(`^schedule ${schedule.schedule_id} resumed; next fire \\d{4}-`))]);
    await setPaused(client, schedule.schedule_id, true, captureOutput());

    const triggered = await client.triggerSchedule(schedule.schedule_id);
    expect(await showStatus(triggered.execution_id, client, { watch: true }, captureOutput())).toBe(0);
    expect(await client.execution(triggered.execution_id)).toMatchObject({
      result: { message: 'Hello, Cron!' },
      schedule: { schedule_id: schedule.schedule_id, manual: true },
    });
    await client.deleteSchedule(schedule.schedule_id);
    await expect(client.deleteSchedule(schedule.schedule_id)).rejects.toThrow(
      `not_found: schedule ${schedule.schedule_id} not found (HTTP 404)`,
    );
  });

  it('sends a signal that a waiting step takes', async () => {
    await registerFiles([approval], client, captureOutput());
    const { execution_id: id } = await client.execute({ path: 'examples/approval', payload: { patience: 60 } });
    const sent = captureOutput();
    const delivered = await sendSignal(client, id, 'approval', { set: { approved: true, by: 'ada' } }, sent);
    expect(sent.stdout).toEqual([`signal approval sent to execution ${id} (event ${delivered.event_id})`]);
    expect(await showStatus(id, client, { watch: true }, captureOutput())).toBe(0);
    expect((await client.execution(id)).result).toEqual({ order: 42, status: 'shipped', approved_by: 'ada' });
    await expect(sendSignal(client, id, 'approval', { payload: true }, captureOutput())).rejects.toThrow(/^already_terminal: /);
  });

  it('lists the workers that reported to the server, with their capacity', async () => {
    const printed = captureOutput();
    await listWorkers(client, { json: false }, printed);
    expect(printed.stdout[0]).toMatch(/^WORKER\s+STATUS\s+SLOTS\s+FREE\s+TOOLS\s+POOL\s+NODE\s+LAST SEEN$/);
    expect(printed.stdout[1]).toMatch(/^\S+-\d+-[0-9a-f]{6}\s+active\s+8\s+\d+\s+all\s+-\s+/);
  });
});
