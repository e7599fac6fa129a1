import * as fs from 'fs';
import * as path from 'path';
import { CallError, type Step } from '../model';
import { parsePlaybook } from '../parse';
import { runStepCall } from './run-step-call';
import { errorResult, fakeDeps, http, httpError, okResult, rows, type FakeDeps } from './testing/fake-deps';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/noetl/playbooks');

/** A step of a NoETL fixture playbook, parsed unchanged. */
function fixtureStep(file: string, name: string): { step: Step; workload: Record<string, unknown> } {
  const parsed = parsePlaybook(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
  const step = parsed.playbook?.steps.find((s) => s.name === name);
  if (!parsed.playbook || !step) throw new Error(`${file}: no step ${name} (${parsed.problems.map((p) => p.message).join('; ')})`);
  return { step, workload: parsed.playbook.workload };
}

function run(step: Step, deps: FakeDeps, scope: Record<string, unknown>) {
  return runStepCall(
    { stepName: step.name, tool: step.tool!, stepInput: step.input, retry: step.retry, scope, signal: new AbortController().signal },
    deps,
  );
}

function loopScope(workload: Record<string, unknown>, iterator: string, item: unknown, ctx: Record<string, unknown> = {}) {
  return {
    ...workload,
    workload,
    ctx: { ...workload, ...ctx },
    execution_id: '7001',
    [iterator]: item,
    iter: { [iterator]: item, _index: 0 },
  };
}

describe('fixture pipelines run as their templates expect', () => {
  it('pagination/fetch_load_test: reads output.data as the envelope, so one page per patient (RESULT_SHAPES s6 "Inconsistency")', async () => {
    const { step, workload } = fixtureStep('pagination/fetch_load_test/test_fetch_load.yaml', 'fetch_all_patients');
    const deps = fakeDeps((kind, config) => {
      if (kind === 'noop') return {};
      if (kind === 'http') {
        const page = Number((config.params as Record<string, unknown>).page);
        return http({ meta: { page, totalPages: 3 }, entry: [{ i: 1 }, { i: 2 }] });
      }
      return { row_count: 1, rows: [] };
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'item', 'P-0001')));
    expect(deps.calls.map((c) => c.kind)).toEqual(['noop', 'http', 'noop', 'postgres']);
    expect(deps.calls[1]?.config.params).toMatchObject({ patientId: 'P-0001', page: 1, pageSize: 10 });
    expect(String(deps.calls[3]?.config.query)).toMatch(/'P-0001',\s+1,\s+0,\s+true/);
    expect(result.iter).toMatchObject({ item: 'P-0001', page: 1, pages_fetched: 1, records_fetched: 0, has_more: false });
  });

  it('pagination/fetch_load_test: with the body at output.data the paginate -> jump loop fetches every page', async () => {
    const { step, workload } = fixtureStep('pagination/fetch_load_test/test_fetch_load.yaml', 'fetch_all_patients');
    const deps = fakeDeps((kind, config) => {
      if (kind === 'noop') return {};
      if (kind === 'http') {
        const page = Number((config.params as Record<string, unknown>).page);
        return { meta: { page, totalPages: 3 }, entry: Array.from({ length: page }, (_, i) => ({ i })) };
      }
      return { row_count: 1, rows: [] };
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'item', 'P-0001')));
    const pages = deps.calls.filter((c) => c.kind === 'http').map((c) => (c.config.params as Record<string, unknown>).page);
    expect(pages).toEqual([1, 2, 3]);
    expect(String(deps.calls.at(-1)?.config.query)).toMatch(/'P-0001',\s+3,\s+6,\s+true/);
    expect(result.iter).toMatchObject({ page: 3, pages_fetched: 3, records_fetched: 6, has_more: false });
  });

  it('pagination/fetch_load_test: a 404 page ends the patient with has_more false', async () => {
    const { step, workload } = fixtureStep('pagination/fetch_load_test/test_fetch_load.yaml', 'fetch_all_patients');
    const deps = fakeDeps((kind) => {
      if (kind === 'http') throw httpError(404);
      return {};
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'item', 'P-0404')));
    expect(result.iter).toMatchObject({ has_more: false, pages_fetched: 0 });
    expect(deps.calls.map((c) => c.kind)).toEqual(['noop', 'http', 'noop', 'postgres']);
  });

  it('pft_flow_test: claim -> fetch -> save -> jump claim drains the queue and breaks on an empty claim', async () => {
    const { step, workload } = fixtureStep('pft_flow_test/test_pft_flow.yaml', 'process_pft_action_batches');
    const queue = [
      { data_type: 'assessments', batch_id: 1, patient_ids_csv: 'a,b', patient_count: 2 },
      { data_type: 'conditions', batch_id: 2, patient_ids_csv: 'c', patient_count: 1 },
    ];
    const deps = fakeDeps((kind, config) => {
      if (kind === 'http') return http({ rows: [{ id: 1 }], rowCount: 1 });
      if (String(config.command).includes('FOR UPDATE SKIP LOCKED')) {
        const next = queue.shift();
        return next ? rows([next]) : rows([]);
      }
      return rows([{ rows_saved: 1 }]);
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'slot', 3)));
    expect(deps.calls.map((c) => c.kind)).toEqual(['postgres', 'http', 'postgres', 'postgres', 'http', 'postgres', 'postgres']);
    expect(String(deps.calls[0]?.config.command)).toContain("worker_id = 'action-batch:3'");
    expect(deps.calls[1]?.config.url).toBe(`${String(workload.api_url)}/api/v1/pft/batch/assessments`);
    const firstSave = String(deps.calls[2]?.config.command);
    expect(firstSave).toContain(`JSONB_TO_RECORDSET('[{"id":1}]'::jsonb)`);
    expect(firstSave).toContain("AND data_type = 'assessments'");
    expect(String(deps.calls[5]?.config.command)).toContain("AND data_type = 'conditions'");
    expect(result.iter).toMatchObject({ data_type: 'conditions', batch_id: 2, batch_row_count: 1 });
  });

  it('iterator_save_test: the policy sets iter.processed_item from output.data and the save reads it', async () => {
    const { step, workload } = fixtureStep('iterator_save_test/iterator_save_test.yaml', 'process_items');
    const deps = fakeDeps((kind, config) => {
      if (kind === 'python') {
        const item = (config.input as Record<string, Record<string, unknown>>).item!;
        return { item_name: item.name, item_value: item.value };
      }
      return { row_count: 1 };
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'item', { name: 'item2', value: 200 })));
    expect(deps.calls[0]?.config.input).toEqual({ item: { name: 'item2', value: 200 } });
    expect(String(deps.calls[1]?.config.command)).toContain("'7001:item2',\n  '7001',\n  'item2',\n  200\n");
    expect(result.iter.processed_item).toEqual({ item_name: 'item2', item_value: 200 });
  });

  it('load_test/heavy_loop_aggregation: an else rule without then keeps its ctx set (a growing list)', async () => {
    const { step, workload } = fixtureStep('load_test/heavy_loop_aggregation/heavy_loop_aggregation.yaml', 'process_items');
    const deps = fakeDeps((_kind, config) => {
      const input = config.input as { loop_results: unknown[]; item: { id: number } };
      return { item_result: { item_id: input.item.id }, loop_results: [...input.loop_results, { item_id: input.item.id }] };
    });
    const result = okResult(await run(step, deps, loopScope(workload, 'item', { id: 4 }, { loop_results: [{ item_id: 3 }] })));
    expect(result.ctx).toEqual({ loop_results: [{ item_id: 3 }, { item_id: 4 }] });
  });

  it('pagination/loop_with_pagination: fetch_result, the sibling {{ fetch }} and results.check_pagination', async () => {
    const { step, workload } = fixtureStep('pagination/loop_with_pagination/test_loop_with_pagination.yaml', 'fetch_page');
    const body = { data: [{ id: 1 }, { id: "o'brien" }], paging: { page: 2, hasMore: true } };
    const deps = fakeDeps((kind, config) => {
      if (kind === 'http') return http(body);
      if (kind === 'python') {
        const paging = (config.input as { http_response: { data: typeof body } }).http_response.data.paging;
        return { has_more: paging.hasMore, current_page: paging.page };
      }
      return { row_count: 1, rows: [] };
    });
    const ctx = {
      current_page: 2,
      current_endpoint_index: 0,
      current_endpoint: { name: 'assessments', path: '/api/v1/assessments', page_size: 30 },
    };
    const result = okResult(await run(step, deps, { ...workload, workload, ctx: { ...workload, ...ctx }, ...ctx, execution_id: '7001' }));
    expect(deps.calls[0]?.config).toMatchObject({
      url: `${String(workload.api_url)}/api/v1/assessments`,
      params: { page: 2, pageSize: 30 },
    });
    const insert = String(deps.calls[1]?.config.query);
    expect(insert).toContain(`'[{"id":1},{"id":"o''brien"}]'::jsonb`);
    expect(insert).toContain('  2,\n');
    expect(insert).toContain('  true\n);');
    expect(result.result).toMatchObject({ has_more: true, results: { check_pagination: { has_more: true, current_page: 2 } } });
  });

  it('pagination/pipeline error handling: the skip pattern continues, do: fail stops before should_not_reach', async () => {
    const file = 'pagination/pipeline/test_pipeline_error_handling.yaml';
    const skip = fixtureStep(file, 'test_skip_transform');
    const skipDeps = fakeDeps((kind) => {
      if (kind === 'http') return http({ data: [1] });
      if (skipDeps.calls.length === 2) throw new CallError({ kind: 'code', message: "KeyError: 'nonexistent_key'", retryable: false });
      return { status: 'passed', skipped: true };
    });
    const skipped = okResult(await run(skip.step, skipDeps, { ...skip.workload, workload: skip.workload, ctx: {} }));
    expect(skipped.result).toMatchObject({ status: 'ok', skipped: true });
    const auth = fixtureStep(file, 'test_fail_auth');
    const authDeps = fakeDeps(() => {
      throw httpError(401);
    });
    const failed = errorResult(await run(auth.step, authDeps, { ...auth.workload, workload: auth.workload, ctx: {} }));
    expect(failed.error.kind).toBe('auth');
    expect(authDeps.calls).toHaveLength(1);
  });
});
