import type { Json, JsonObject } from '@noetl/event-kernel';
import { CallError, TOOL_KINDS, type CursorSpec, type Policy, type Sink, type Task, type ToolSpec } from '../model';

/**
 * What a `command.issued` carries for a step's call (`commandSpec`), all
 * unrendered: the ledger and the wire hold it as JSON, and a worker reads
 * it back with `readCallSpec`.
 */
export interface CallSpec {
  step: string;
  tool: ToolSpec;
  input: JsonObject;
  /** The success-side and `on: any` policies: error-side retry is the scheduler's. */
  retry: Policy[];
  /** The playbook's keychain entries the call reads; the worker resolves them. */
  keychain?: JsonObject[];
  /** Run with nothing beside it on its worker (the attempt after a worker was lost running it). */
  run_alone?: true;
  /** The worker pool it goes to. */
  pool?: string;
  scope_ref?: { execution_id: string };
}

/**
 * A loop step's body (`loopBodySpec`), unrendered: what a stage's frames
 * and a fan-out shard's command carry, read back with `readLoopBodySpec`.
 */
export interface LoopBodySpec {
  step: string;
  tool: ToolSpec;
  input: JsonObject;
  /** Every `retry:` policy: a failing row is retried in process by the error-side ones. */
  retry: Policy[];
  iterator: string;
  process: 'row' | 'frame';
  row_concurrency: number;
  max_rows: number;
  sink: Sink | null;
  /** A cursor loop's claim (DSL.md s4.3). */
  cursor: CursorSpec | null;
  keychain?: JsonObject[];
  pool?: string;
}

/** A command's spec from the wire, checked; throws CallError (kind `internal`) naming what is malformed. */
export function readCallSpec(spec: JsonObject, step: string): CallSpec {
  const read = new SpecReader(spec, `the command spec of step ${step}`);
  return {
    step: read.text('step', step),
    tool: read.tool(),
    input: read.object('input'),
    retry: read.policies(),
    ...read.keychainAndPool(),
    ...(spec['run_alone'] === true ? { run_alone: true } : {}),
  };
}

/** A loop body's spec from the wire, checked, with the defaults of a ledger written before a field existed; throws CallError. */
export function readLoopBodySpec(spec: JsonObject, step: string): LoopBodySpec {
  const read = new SpecReader(spec, `the loop body of step ${step}`);
  const cursor = spec['cursor'] ?? null;
  const sink = spec['sink'] ?? null;
  if (cursor !== null && !isCursorSpec(cursor)) throw read.malformed('cursor');
  if (sink !== null && !isSink(sink)) throw read.malformed('sink');
  return {
    step: read.text('step', step),
    tool: read.tool(),
    input: read.object('input'),
    retry: read.policies(),
    iterator: read.text('iterator', 'item'),
    process: spec['process'] === 'frame' ? 'frame' : 'row',
    row_concurrency: read.count('row_concurrency'),
    max_rows: read.count('max_rows'),
    sink,
    cursor,
    ...read.keychainAndPool(),
  };
}

/** The fields specs share, each checked or defaulted; `malformed` names the field that is not what the planner writes. */
class SpecReader {
  constructor(
    private readonly spec: JsonObject,
    private readonly what: string,
  ) {}

  malformed(field: string): CallError {
    return new CallError({
      kind: 'internal',
      message: `${this.what} is malformed: "${field}" is not what the planner writes`,
      retryable: false,
    });
  }

  text(field: string, fallback: string): string {
    const value = this.spec[field] ?? fallback;
    if (typeof value !== 'string') throw this.malformed(field);
    return value;
  }

  object(field: string): JsonObject {
    const value = this.spec[field] ?? {};
    if (!isObject(value)) throw this.malformed(field);
    return value;
  }

  /** A positive count; a missing or zero one is 1. */
  count(field: string): number {
    const value = this.spec[field] ?? 1;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw this.malformed(field);
    return value || 1;
  }

  tool(): ToolSpec {
    const value = this.spec['tool'];
    if (!isToolSpec(value)) throw this.malformed('tool');
    return value;
  }

  policies(): Policy[] {
    const value = this.spec['retry'] ?? [];
    if (!isPolicyList(value)) throw this.malformed('retry');
    return value;
  }

  keychainAndPool(): Pick<CallSpec, 'keychain' | 'pool'> {
    const { keychain, pool } = this.spec;
    if (keychain !== undefined && (!Array.isArray(keychain) || !keychain.every(isObject))) throw this.malformed('keychain');
    if (pool !== undefined && typeof pool !== 'string') throw this.malformed('pool');
    return { ...(keychain !== undefined ? { keychain } : {}), ...(pool !== undefined ? { pool } : {}) };
  }
}

// The guards check the shape the normaliser gives each model (their discriminants and collections), not every
// field again: a spec comes from this runtime's own planner, through its ledger and its control plane.

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTask(value: unknown): value is Task {
  return (
    isObject(value) &&
    typeof value['name'] === 'string' &&
    (TOOL_KINDS as readonly Json[]).includes(value['kind'] ?? null) &&
    isObject(value['config']) &&
    isObject(value['input']) &&
    isPolicyList(value['policies']) &&
    Array.isArray(value['set'])
  );
}

function isToolSpec(value: unknown): value is ToolSpec {
  return isObject(value) && Array.isArray(value['tasks']) && value['tasks'].every(isTask) && typeof value['pipeline'] === 'boolean';
}

function isPolicyList(value: unknown): value is Policy[] {
  return Array.isArray(value) && value.every((policy) => isPolicy(policy));
}

function isPolicy(value: unknown): value is Policy {
  if (!isObject(value)) return false;
  const { when, on, action } = value;
  return (
    (typeof when === 'string' || typeof when === 'boolean') &&
    (on === 'error' || on === 'success' || on === 'any') &&
    isObject(action) &&
    typeof action['do'] === 'string' &&
    Array.isArray(value['set'])
  );
}

function isSink(value: unknown): value is Sink {
  if (!isObject(value)) return false;
  if (value['kind'] === 'task') return isTask(value['task']);
  return value['kind'] === 'table' && typeof value['table'] === 'string' && (value['mode'] === 'insert' || value['mode'] === 'upsert');
}

function isCursorSpec(value: unknown): value is CursorSpec {
  return isObject(value) && value['kind'] === 'postgres' && typeof value['claim'] === 'string';
}
