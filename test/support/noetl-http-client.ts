import request from 'supertest';
import type { App } from 'supertest/types';
import type { Json, JsonObject } from '../../libs/event-kernel/src';
import type { EventView, ExecutionDetail, ScheduleInput, ScheduleView } from '../../libs/runtime/src';
import { waitFor } from './wait-for';

const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED'];

export interface RegisteredPlaybook {
  catalog_id: string;
  path: string;
  version: number;
}

/**
 * The REST contract of DESIGN.md s6 as a behavioural spec uses it: register,
 * execute, read the detail and the events, cancel. Talks to an in-process Nest
 * app (supertest's `App`) or to a server at a base URL. Every call asserts its
 * success status, so a spec reads as the scenario it checks.
 */
export class NoetlHttpClient {
  constructor(
    private readonly target: App | string,
    /** Sent as `Authorization: Bearer` (a server with auth on); none for an app with NOETL_AUTH=off. */
    private readonly apiKey?: string,
  ) {}

  /** A request to the target, with the key when there is one. */
  request(method: 'get' | 'post' | 'patch' | 'delete', path: string): request.Test {
    const test = request(this.target)[method](path);
    return this.apiKey ? test.set('Authorization', `Bearer ${this.apiKey}`) : test;
  }

  async register(content: string): Promise<RegisteredPlaybook> {
    const res = await this.request('post', '/api/catalog/register').send({ content });
    if (res.status !== 201) throw new Error(`register answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as RegisteredPlaybook;
  }

  async execute(path: string, payload?: JsonObject): Promise<string> {
    const res = await this.request('post', '/api/execute').send({ path, ...(payload ? { payload } : {}) });
    if (res.status !== 201) throw new Error(`execute ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return (res.body as { execution_id: string }).execution_id;
  }

  /** Registers `content`, starts it with `payload`, and waits for its terminal status. */
  async run(content: string, payload?: JsonObject, timeoutMs?: number): Promise<ExecutionDetail> {
    const { path } = await this.register(content);
    return this.waitForTerminal(await this.execute(path, payload), timeoutMs);
  }

  async detail(executionId: string): Promise<ExecutionDetail> {
    const res = await this.request('get', `/api/executions/${executionId}`);
    if (res.status !== 200) throw new Error(`GET execution ${executionId} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as ExecutionDetail;
  }

  async waitForTerminal(executionId: string, timeoutMs = 15_000): Promise<ExecutionDetail> {
    return this.waitForDetail(executionId, (detail) => TERMINAL.includes(detail.status), timeoutMs, 'a terminal status');
  }

  async waitForDetail(
    executionId: string,
    done: (detail: ExecutionDetail) => boolean,
    timeoutMs = 15_000,
    description = 'the expected execution detail',
  ): Promise<ExecutionDetail> {
    let last: ExecutionDetail | undefined;
    try {
      return await waitFor(
        async () => {
          last = await this.detail(executionId);
          return done(last) && last;
        },
        { timeoutMs, intervalMs: 50, description: `execution ${executionId} to reach ${description}` },
      );
    } catch (error) {
      const events = await this.events(executionId).catch(() => []);
      throw new Error(`${String(error)}\nlast detail: ${JSON.stringify(last)}\nevents: ${describeEvents(events)}`);
    }
  }

  /** Every event of the execution in ledger order (all pages), optionally only of `types`. */
  async events(executionId: string, types: string[] = []): Promise<EventView[]> {
    const all: EventView[] = [];
    let after: string | null = null;
    do {
      const query: Record<string, string | number> = {
        limit: 1000,
        ...(after ? { after } : {}),
        ...(types.length ? { type: types.join(',') } : {}),
      };
      const res = await this.request('get', `/api/executions/${executionId}/events`).query(query);
      if (res.status !== 200) throw new Error(`GET events of ${executionId} answered ${res.status}: ${JSON.stringify(res.body)}`);
      const page = res.body as { events: EventView[]; next_after: string | null };
      all.push(...page.events);
      after = page.next_after;
    } while (after);
    return all;
  }

  /** Polls until an event of `type` (matching `where`) exists, and returns it. */
  async waitForEvent(
    executionId: string,
    type: string,
    where: (event: EventView) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<EventView> {
    return waitFor(async () => (await this.events(executionId, [type])).find(where), {
      timeoutMs,
      intervalMs: 50,
      description: `a ${type} event in execution ${executionId}`,
    });
  }

  /** POST /api/executions/:id/cancel; returns the raw response for the spec to check its status. */
  cancel(executionId: string, reason?: string): request.Test {
    return this.request('post', `/api/executions/${executionId}/cancel`).send(reason ? { reason } : {});
  }

  /** POST /api/executions/:id/signals/:name; returns the raw response for the spec to check its status. */
  signal(executionId: string, name: string, payload?: Json, idempotencyKey?: string): request.Test {
    return this.request('post', `/api/executions/${executionId}/signals/${encodeURIComponent(name)}`).send({
      ...(payload !== undefined ? { payload } : {}),
      ...(idempotencyKey !== undefined ? { idempotency_key: idempotencyKey } : {}),
    });
  }

  async createSchedule(schedule: ScheduleInput): Promise<ScheduleView> {
    const res = await this.request('post', '/api/schedules').send(schedule);
    if (res.status !== 201) throw new Error(`create schedule answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as ScheduleView;
  }

  async schedule(scheduleId: string): Promise<ScheduleView> {
    const res = await this.request('get', `/api/schedules/${scheduleId}`);
    if (res.status !== 200) throw new Error(`GET schedule ${scheduleId} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as ScheduleView;
  }

  async updateSchedule(scheduleId: string, patch: ScheduleInput): Promise<ScheduleView> {
    const res = await this.request('patch', `/api/schedules/${scheduleId}`).send(patch);
    if (res.status !== 200) throw new Error(`PATCH schedule ${scheduleId} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as ScheduleView;
  }

  /** Every execution of a playbook path (newest first), in full. */
  async executionsOf(path: string): Promise<ExecutionDetail[]> {
    const res = await this.request('get', '/api/executions').query({ path, limit: 1000 });
    if (res.status !== 200) throw new Error(`GET executions answered ${res.status}: ${JSON.stringify(res.body)}`);
    const summaries = (res.body as { executions: { execution_id: string }[] }).executions;
    return Promise.all(summaries.map((s) => this.detail(s.execution_id)));
  }

  async createCredential(name: string, type: string, data: JsonObject): Promise<void> {
    const res = await this.request('post', '/api/credentials').send({ name, type, data });
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`create credential ${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }

  /** POST /api/keys (the client's key must be an admin's): a new key of the client's tenant. */
  async createKey(role: string, name = `e2e ${role}`): Promise<string> {
    const res = await this.request('post', '/api/keys').send({ name, role });
    if (res.status !== 201) throw new Error(`create ${role} key answered ${res.status}: ${JSON.stringify(res.body)}`);
    return (res.body as { key: string }).key;
  }

  /** Executions whose parent is `executionId`, from the executions list. */
  async children(executionId: string): Promise<ExecutionDetail[]> {
    const res = await this.request('get', '/api/executions').query({ limit: 1000 });
    if (res.status !== 200) throw new Error(`GET executions answered ${res.status}: ${JSON.stringify(res.body)}`);
    const summaries = (res.body as { executions: { execution_id: string; parent_execution_id: string | null }[] }).executions;
    return Promise.all(summaries.filter((s) => s.parent_execution_id === executionId).map((s) => this.detail(s.execution_id)));
  }
}

/** `event_type[step]` per event, for failure messages. */
export function describeEvents(events: EventView[]): string {
  return events.map((e) => `${e.event_type}${e.step ? `[${e.step}]` : ''}${e.status ? `(${e.status})` : ''}`).join(', ');
}
