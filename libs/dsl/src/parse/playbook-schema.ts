import { POOL_NAME, TOOL_KINDS, type Json, type JsonObject } from '../model';
import { OVERLAP_POLICIES, SCHEDULE_KEYS } from '../schedule';
import {
  ARC_KEYS,
  CURSOR_KEYS,
  EXECUTOR_KEYS,
  FANOUT_KEYS,
  FRAME_KEYS,
  LOOP_KEYS,
  NEXT_KEYS,
  SINK_TABLE_KEYS,
  SINK_TASK_KEYS,
  STEP_KEYS,
  TASK_STRUCTURE_KEYS,
  TOOL_CONFIG_KEYS,
  TOP_KEYS,
  WORKBOOK_ENTRY_KEYS,
} from './allowed-keys';

/** Where the schema says it lives; editors show it, and `$id` must be absolute. */
export const PLAYBOOK_SCHEMA_ID = 'https://noetl.io/schemas/playbook.schema.json';

/**
 * The JSON Schema (draft-07) of a playbook, built from the key lists the
 * parser checks against (allowed-keys.ts, TOOL_KINDS, SCHEDULE_KEYS): where
 * the parser refuses unknown keys, so does the schema, and a key added to a
 * list appears here. It describes the document's shape for editors; the
 * parser's rules that span keys (required tool keys per kind, references
 * between steps, template syntax) stay with `noetl validate`.
 */
export function playbookSchema(): JsonObject {
  const template: JsonObject = { type: 'string', description: 'a template: {{ expression }}' };
  const condition: JsonObject = { type: ['string', 'boolean'], description: 'a condition template or a boolean' };
  const positiveOrTemplate: JsonObject = { anyOf: [{ type: 'integer', minimum: 1 }, template] };
  const mapping: JsonObject = { type: 'object' };
  const kinds: Json[] = [...TOOL_KINDS, 'js'];
  const poolName: JsonObject = {
    type: 'string',
    pattern: POOL_NAME.source,
    description: 'a worker pool: only workers started with NOETL_WORKER_POOL set to it run the step',
  };
  const pool: JsonObject = { anyOf: [poolName, { type: 'object', description: "NoETL's connection-pool options (ignored)" }] };

  const task = (): JsonObject => ({
    type: 'object',
    required: ['kind'],
    properties: {
      ...open(TASK_STRUCTURE_KEYS, {
        kind: { enum: kinds, description: 'the tool kind' },
        name: { type: 'string', description: 'the task name (in a pipeline) or the workbook entry (kind: workbook)' },
        input: mapping,
        args: mapping,
        set: mapping,
        spec: {
          type: 'object',
          properties: { policy: { description: 'task policy: {mode: exclusive, rules: [{when, then: {do}}, {else}]}' } },
        },
        pool,
      }),
      // `pool` is in both lists (a step key it hints at): described the same in each.
      ...open(TOOL_CONFIG_KEYS, { pool }),
    },
  });
  const sink: JsonObject = {
    type: 'object',
    required: ['tool'],
    description: 'a tool ({tool: {kind, ...}}) or the table form ({tool: postgres, auth, table, mode, key, args})',
    properties: { ...open(SINK_TASK_KEYS, { tool: { anyOf: [{ enum: kinds }, task()] } }), ...open(SINK_TABLE_KEYS) },
  };
  const arc = closed(
    ARC_KEYS,
    {
      step: { type: 'string', minLength: 1, description: 'the target step' },
      when: condition,
      set: mapping,
      on: { enum: ['call.done', 'call.partial'] },
    },
    ['step'],
  );
  const frame = closed(
    FRAME_KEYS,
    Object.fromEntries(
      [...FRAME_KEYS].map((key): [string, Json] => [key, key === 'process' ? { enum: ['row', 'frame'] } : { type: 'integer', minimum: 1 }]),
    ),
  );
  const loopMode: JsonObject = { enum: ['sequential', 'parallel', 'async', 'cursor'] };
  const loop = closed(LOOP_KEYS, {
    in: { anyOf: [template, { type: 'array' }], description: 'the items: a template giving a list, or a list' },
    collection: { anyOf: [template, { type: 'array' }] },
    iterator: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    element: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    mode: loopMode,
    concurrency: positiveOrTemplate,
    max_in_flight: positiveOrTemplate,
    cursor: closed(
      CURSOR_KEYS,
      { kind: { const: 'postgres' }, claim: { type: 'string', description: 'SQL leasing up to {{ __frame_max_rows }} rows' } },
      ['claim'],
    ),
    sink,
    spec: {
      type: 'object',
      properties: {
        mode: loopMode,
        max_in_flight: positiveOrTemplate,
        concurrency: positiveOrTemplate,
        frame,
        loop_mode: { const: 'fanout' },
        fanout: closed(FANOUT_KEYS, { max_shard_retries: { type: 'integer', minimum: 0 } }),
      },
    },
  });
  const next: JsonObject = {
    anyOf: [
      { type: 'string', description: 'one step name' },
      { type: 'array', items: { anyOf: [{ type: 'string' }, arc] } },
      arc,
      closed(NEXT_KEYS, {
        spec: { type: 'object', properties: { mode: { enum: ['exclusive', 'inclusive'] }, on_no_match: { enum: ['complete', 'quiet'] } } },
        arcs: { type: 'array', items: { anyOf: [{ type: 'string' }, arc] } },
      }),
    ],
  };
  const step: JsonObject = {
    type: 'object',
    required: ['step'],
    properties: open(STEP_KEYS, {
      step: { type: 'string', minLength: 1, description: 'the step name, unique in the workflow' },
      desc: { type: 'string' },
      description: { type: 'string' },
      input: mapping,
      args: mapping,
      tool: {
        description: 'one tool mapping, a list of tasks (a pipeline), or a bare kind with the tool keys on the step',
        anyOf: [{ enum: kinds }, task(), { type: 'array', minItems: 1, items: task() }, { type: 'null' }],
      },
      loop,
      retry: {
        description: 'true, a number of runs, or a list of {when, then}',
        anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0 }, mapping, { type: 'array', items: mapping }, { type: 'null' }],
      },
      set: mapping,
      vars: mapping,
      next: { anyOf: [next, { type: 'null' }] },
      sink,
      output: mapping,
      spec: mapping,
    }),
    // The bare-kind form (`tool: http` with `url` beside it) takes the tool's keys on the step.
    if: { properties: { tool: { type: 'string' } }, required: ['tool'] },
    then: {},
    else: { propertyNames: { enum: [...STEP_KEYS] } },
  };
  const schedule = closed(new Set(SCHEDULE_KEYS), {
    cron: { type: 'string', description: '5 fields: minute hour day-of-month month day-of-week' },
    interval_seconds: { type: 'integer', minimum: 1 },
    timezone: { type: 'string', description: 'an IANA time zone (default UTC)' },
    payload: mapping,
    overlap: { enum: [...OVERLAP_POLICIES] },
    catchup_seconds: { type: 'integer', minimum: 10 },
    jitter_seconds: { type: 'integer', minimum: 0 },
    paused: { type: 'boolean' },
  });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: PLAYBOOK_SCHEMA_ID,
    title: 'NoETL playbook',
    description: 'A playbook of the NoETL runtime (docs/language.md). Generated from the validator by `npm run schema`; do not edit.',
    ...closed(
      TOP_KEYS,
      {
        apiVersion: { type: 'string', pattern: '^noetl\\.io/v\\d+[a-z0-9]*$', description: 'noetl.io/v2' },
        kind: { const: 'Playbook' },
        metadata: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1 },
            path: { type: 'string', minLength: 1 },
            description: { type: 'string' },
            schedule,
          },
        },
        workload: { type: ['object', 'null'], description: 'the default inputs; an execution payload is deep-merged over it' },
        keychain: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', minLength: 1 }, kind: { type: 'string' }, credential: { type: 'string' } },
          },
        },
        workbook: {
          type: ['array', 'null'],
          items: closed(
            WORKBOOK_ENTRY_KEYS,
            { name: { type: 'string', minLength: 1 }, tool: task(), desc: { type: 'string' }, description: { type: 'string' } },
            ['name', 'tool'],
          ),
        },
        executor: {
          anyOf: [
            closed(EXECUTOR_KEYS, {
              spec: { type: 'object', properties: { entry_step: { type: 'string' }, final_step: { type: 'string' }, pool: poolName } },
            }),
            { type: 'null' },
          ],
        },
        workflow: { type: 'array', minItems: 1, items: step },
      },
      ['apiVersion', 'kind', 'metadata', 'workflow'],
    ),
  };
}

/** A mapping whose keys are exactly `keys`; each described by `known` where it says more than "any value". */
function closed(keys: ReadonlySet<string>, known: Record<string, Json> = {}, required: string[] = []): JsonObject {
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties: open(keys, known), additionalProperties: false };
}

/** `properties` for every key of `keys`. A described key missing from `keys` is a bug in this file. */
function open(keys: ReadonlySet<string>, known: Record<string, Json> = {}): JsonObject {
  for (const key of Object.keys(known))
    if (!keys.has(key)) throw new Error(`playbook schema: "${key}" is not a key the parser accepts here`);
  return Object.fromEntries([...keys].map((key): [string, Json] => [key, known[key] ?? {}]));
}
