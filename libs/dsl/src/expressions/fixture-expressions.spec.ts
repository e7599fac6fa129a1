import { ExpressionEngine } from './index';

/**
 * Expressions the NoETL fixture playbooks use (RESULT_SHAPES.md §11), with
 * the result envelopes they are evaluated against.
 */

const e = new ExpressionEngine({ now: () => new Date('2025-01-01T00:00:00Z'), uuid: () => 'uuid-1' });

const rows = Array.from({ length: 1200 }, (_, i) => [`urn:${i}`, i]);

const scope = {
  execution_id: '5123',
  workload: { patients_per_facility: '25', limit: 10, endpoints: ['/a', '/b'] },
  ctx: { current_page: '2', has_more: true, facility_id: 9, loop_results: undefined, json_data: { note: "o'clock" } },
  iter: {
    page_payload: { title: "it's", n: 1 },
    http_ok: true,
    has_more: false,
    batch_id: '17',
    data_type: 'assessments',
    http_status: undefined,
  },
  output: {
    status: 'error',
    http: { status: 502 },
    error: { kind: 'server_error', retryable: true, message: 'Connection reset by peer', status: 503 },
    data: { row_count: null, rows: [{ data_count: '30', mds_complete: true, remaining_count: '0' }] },
  },
  process_high: undefined,
  process_low: { category: 'low', processed: 4 },
  start: { rows, columns: ['urn', 'n'], _ref: { kind: 'result_ref' } },
  hasMore: true,
  event: { name: 'loop.done', step: 'fetch', payload: {} },
  fetch_result: { data: { paging: { page: 3, hasMore: false }, data: [{ id: 1 }, { id: 2 }] } },
  eval_flag: { is_hot: false },
  __frame_max_rows: undefined,
};

describe('fixture expressions', () => {
  it.each([
    ['{{ (ctx.current_page | int) + 1 }}', 3],
    ['{{ iter.page_payload | tojson | replace("\'", "\'\'") }}', '{"title":"it\'\'s","n":1}'],
    ['{{ ctx.json_data | tojson | replace("\'", "\'\'") }}', '{"note":"o\'\'clock"}'],
    ['{{ output.data.row_count | default(0) | int == 0 }}', true],
    ['{{ (output.data.row_count | default(0) | int) > 0 }}', false],
    ['{{ process_high.category if process_high else process_low.category }}', 'low'],
    ['{{ process_high.processed if process_high else process_low.processed }}', 4],
    ['{{ start.rows[1100][0] }}', 'urn:1100'],
    ['{{ start.rows | length }}', 1200],
    ['{{ start.columns is defined }}', true],
    ['{{ start._ref is defined }}', true],
    ['{{ start._preview is defined }}', false],
    ['{{ output.http.status in [500, 502, 503] }}', true],
    ['{{ output.error.status in [500, 502, 503] }}', true],
    ['{{ hasMore | lower }}', 'true'],
    ["{{ event.name == 'loop.done' }}", true],
    ['{{ event.name == "loop.done" }}', true],
    ["{{ output.status == 'error' and output.error.retryable }}", true],
    ['{{ output.status == "error" and output.http.status == 429 }}', false],
    [
      "{{ output.status == 'error' and (output.error.retryable or (output.error.message is defined and " +
        "('Connection reset' in output.error.message or 'timed out' in output.error.message))) }}",
      true,
    ],
    ["{{ output.retryable and output.error.kind == 'server_error' }}", null],
    ["{{ 'true' if iter.http_ok | string | lower == 'true' else 'false' }}", 'true'],
    ["{{ iter.has_more | string | lower == 'true' }}", false],
    ['{{ (output.data.rows[0].data_count | default(0) | int) >= (workload.patients_per_facility | int) }}', true],
    ['{{ ((output.data.rows | default(output.data) | first).mds_complete | string | lower) == "true" }}', true],
    ['{{ (output.data.rows[0].remaining_count | int) == 0 }}', true],
    ['{{ output.data.rows[0].facility_id if (output.data.row_count | default(0) | int) > 0 ' + 'else (ctx.facility_id | default(0)) }}', 9],
    ['{{ ctx.has_more == true }}', true],
    ['{{ ctx.has_more != true }}', false],
    ['{{ eval_flag.is_hot == false }}', true],
    ['{{ ctx.loop_results | default([]) }}', []],
    ['{{ __frame_max_rows | default(1) | int }}', 1],
    ['{{ iter.http_status | default(0) | int }}', 0],
    ['{{ iter.batch_id | int }}', 17],
    ['{{ iter.http_error | default("http_error") | string | replace("\'", "\'\'") }}', 'http_error'],
    ['{{ ctx.final_check_status | default("unknown") }}', 'unknown'],
    ['{{ workload }}', scope.workload],
    ["{{ workload['endpoints'] }}", ['/a', '/b']],
    ['{{ fetch_result.data.data | length }}', 2],
    ['{{ fetch_result.data.paging.hasMore | lower }}', 'false'],
    ['{{ execution_id }}', '5123'],
    ["'{{ execution_id }}:{{ iter.batch_id }}'", "'5123:17'"],
    ['{{ true }}', true],
  ])('%s', (template, expected) => {
    expect(e.renderString(template, scope)).toEqual(expected);
  });

  it('renders the {% if %} SQL block of test_pft_flow', () => {
    const sql = [
      "{% if iter.data_type == 'assessments' %}",
      "INSERT INTO t SELECT * FROM JSONB_TO_RECORDSET('{{ iter.page_payload | tojson | replace(\"'\", \"''\") }}'::jsonb)",
      "{% elif iter.data_type == 'conditions' %}",
      'SELECT 2',
      '{% else %}',
      'SELECT 0',
      '{% endif %}',
    ].join('\n');
    expect(e.renderString(sql, scope)).toBe('\nINSERT INTO t SELECT * FROM JSONB_TO_RECORDSET(\'{"title":"it\'\'s","n":1}\'::jsonb)\n');
    expect(e.renderString(sql, { iter: { data_type: 'other' } })).toBe('\nSELECT 0\n');
  });

  it('renders mixed SQL text with booleans normalised by lower', () => {
    const template = "VALUES ({{ fetch_result.data.paging.page }}, {{ fetch_result.data.paging.hasMore | lower }}, '{{ ctx.missing }}')";
    expect(e.renderString(template, scope)).toBe("VALUES (3, false, '')");
  });

  it('judges fixture `when:` conditions', () => {
    expect(e.evaluateCondition("{{ output.status == 'error' }}", scope)).toBe(true);
    expect(e.evaluateCondition("{{ output.error.kind == 'rate_limit' }}", scope)).toBe(false);
    expect(e.evaluateCondition('{{ output.data.meta.page < output.data.meta.totalPages }}', scope)).toBe(false);
    expect(e.evaluateCondition('{{ ctx.has_more }}', scope)).toBe(true);
    expect(e.evaluateCondition('{{ iter.has_more }}', scope)).toBe(false);
  });
});
