import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The initial schema (DESIGN.md s2, s5; seed 002 s5.1). `noetl.event` is the
 * ledger; every other table is derived and rebuildable, so none has a foreign
 * key to another. Event type names are spelled as literals here on purpose: a
 * migration is frozen SQL and must not move when the registry does.
 */
export class Initial1795344000000 implements MigrationInterface {
  readonly name = 'Initial1795344000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}

const UP = [
  `CREATE SCHEMA IF NOT EXISTS noetl`,

  // --- the ledger -----------------------------------------------------------
  `CREATE TABLE noetl.event (
    event_id            BIGINT PRIMARY KEY,
    tenant_id           TEXT NOT NULL,
    organization_id     TEXT NOT NULL,
    execution_id        BIGINT NOT NULL,
    stream_id           TEXT NOT NULL,
    stream_version      INT NOT NULL CHECK (stream_version > 0),
    aggregate_type      TEXT NOT NULL,
    aggregate_id        TEXT NOT NULL,
    event_type          TEXT NOT NULL,
    schema_name         TEXT NOT NULL,
    schema_version      INT NOT NULL,
    event_time          TIMESTAMPTZ NOT NULL,
    ingest_time         TIMESTAMPTZ NOT NULL DEFAULT now(),
    producer            TEXT NOT NULL,
    causation_id        BIGINT,
    correlation_id      TEXT,
    idempotency_key     TEXT,
    parent_event_id     BIGINT,
    parent_execution_id BIGINT,
    node_name           TEXT,
    command_id          BIGINT,
    stage_id            BIGINT,
    frame_id            BIGINT,
    loop_id             BIGINT,
    status              TEXT,
    payload             JSONB NOT NULL,
    payload_ref         JSONB,
    meta                JSONB NOT NULL DEFAULT '{}',
    checksum            TEXT NOT NULL,
    CONSTRAINT ck_event_command_issued_has_command CHECK (event_type <> 'command.issued' OR command_id IS NOT NULL),
    CONSTRAINT ck_event_loop_done_has_loop CHECK (event_type <> 'loop.done' OR loop_id IS NOT NULL)
  )`,
  `CREATE INDEX idx_event_execution ON noetl.event (execution_id, event_id)`,
  `CREATE INDEX idx_event_execution_type ON noetl.event (execution_id, event_type)`,
  `CREATE INDEX idx_event_exec_stage_event_id_desc ON noetl.event (execution_id, stage_id, event_id DESC)
     WHERE stage_id IS NOT NULL`,
  `CREATE INDEX idx_event_exec_frame_event_id_desc ON noetl.event (execution_id, frame_id, event_id DESC)
     WHERE frame_id IS NOT NULL`,
  // DESIGN.md invariant 3: dispatch is idempotent at the database.
  `CREATE UNIQUE INDEX uidx_event_command_issued ON noetl.event (execution_id, command_id)
     WHERE event_type = 'command.issued'`,
  `CREATE UNIQUE INDEX uidx_event_loop_done ON noetl.event (execution_id, loop_id)
     WHERE event_type = 'loop.done'`,
  `CREATE UNIQUE INDEX uidx_event_terminal ON noetl.event (execution_id)
     WHERE event_type IN ('execution.completed', 'execution.failed', 'execution.cancelled')`,
  `CREATE UNIQUE INDEX uidx_event_idempotency_key ON noetl.event (tenant_id, idempotency_key)
     WHERE idempotency_key IS NOT NULL`,
  `CREATE UNIQUE INDEX uidx_event_stream_version ON noetl.event (stream_id, stream_version)`,

  // --- catalog --------------------------------------------------------------
  `CREATE TABLE noetl.catalog (
    catalog_id      BIGINT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    path            TEXT NOT NULL,
    version         INT NOT NULL CHECK (version > 0),
    content         TEXT NOT NULL,
    playbook        JSONB NOT NULL,
    checksum        TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT uq_catalog_path_version UNIQUE (tenant_id, organization_id, path, version)
  )`,

  // --- projections written by the runtime -------------------------------------
  `CREATE TABLE noetl.execution (
    execution_id        BIGINT PRIMARY KEY,
    tenant_id           TEXT NOT NULL,
    organization_id     TEXT NOT NULL,
    parent_execution_id BIGINT,
    parent_command_id   BIGINT,
    catalog_id          BIGINT,
    path                TEXT,
    version             INT,
    status              TEXT NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
    workload            JSONB,
    result              JSONB,
    result_ref          JSONB,
    error               JSONB,
    started_at          TIMESTAMPTZ,
    completed_at        TIMESTAMPTZ,
    last_event_id       BIGINT,
    planned_event_id    BIGINT,
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX idx_execution_tenant_status ON noetl.execution (tenant_id, organization_id, status, execution_id DESC)`,
  `CREATE INDEX idx_execution_tenant_path ON noetl.execution (tenant_id, organization_id, path)`,
  `CREATE INDEX idx_execution_parent ON noetl.execution (parent_execution_id)`,

  `CREATE TABLE noetl.command (
    command_id        BIGINT PRIMARY KEY,
    execution_id      BIGINT NOT NULL,
    tenant_id         TEXT NOT NULL,
    organization_id   TEXT NOT NULL,
    step              TEXT NOT NULL,
    run_id            TEXT,
    kind              TEXT,
    attempt           INT NOT NULL DEFAULT 1,
    max_attempts      INT NOT NULL DEFAULT 1,
    status            TEXT NOT NULL
                      CHECK (status IN ('ISSUED', 'CLAIMED', 'RUNNING', 'COMPLETED', 'FAILED', 'ABANDONED', 'CANCELLED')),
    spec              JSONB,
    worker_id         TEXT,
    lease_until       TIMESTAMPTZ,
    claimed_at        TIMESTAMPTZ,
    started_at        TIMESTAMPTZ,
    completed_at      TIMESTAMPTZ,
    notified_at       TIMESTAMPTZ,
    issued_event_id   BIGINT,
    terminal_event_id BIGINT,
    stage_id          BIGINT,
    frame_id          BIGINT,
    loop_id           BIGINT,
    iteration         INT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX idx_command_unclaimed ON noetl.command (created_at) WHERE status = 'ISSUED'`,
  `CREATE INDEX idx_command_lease ON noetl.command (lease_until) WHERE status IN ('CLAIMED', 'RUNNING')`,
  `CREATE INDEX idx_command_execution ON noetl.command (execution_id)`,

  // --- stages and frames (seed 002 s5.1, without foreign keys) -------------
  `CREATE TABLE noetl.stage (
    stage_id        BIGINT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    execution_id    BIGINT NOT NULL,
    loop_id         BIGINT,
    step_name       TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('loop', 'fanout', 'reduce')),
    status          TEXT NOT NULL DEFAULT 'OPEN',
    frame_policy    JSONB NOT NULL DEFAULT '{}',
    frame_count     INT,
    opened_event_id BIGINT,
    closed_event_id BIGINT,
    parent_stage_id BIGINT,
    started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    ended_at        TIMESTAMPTZ
  )`,
  `CREATE INDEX idx_stage_execution_step_loop ON noetl.stage (execution_id, step_name, loop_id)`,

  `CREATE TABLE noetl.frame (
    frame_id          BIGINT PRIMARY KEY,
    tenant_id         TEXT NOT NULL,
    organization_id   TEXT NOT NULL,
    stage_id          BIGINT NOT NULL,
    execution_id      BIGINT NOT NULL,
    frame_index       INT NOT NULL CHECK (frame_index >= 0),
    cursor            JSONB NOT NULL,
    row_count         INT NOT NULL DEFAULT 0,
    status            TEXT NOT NULL DEFAULT 'PENDING'
                      CHECK (status IN ('PENDING', 'CLAIMED', 'RUNNING', 'COMMITTED', 'FAILED')),
    owner_worker      TEXT,
    lease_until       TIMESTAMPTZ,
    output_ref        JSONB,
    attempts          INT NOT NULL DEFAULT 0,
    claimed_event_id  BIGINT,
    terminal_event_id BIGINT,
    command_id        BIGINT,
    parent_frame_id   BIGINT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at      TIMESTAMPTZ
  )`,
  // The claim key: one frame per index in a stage.
  `CREATE UNIQUE INDEX uidx_frame_stage_index ON noetl.frame (stage_id, frame_index)`,
  `CREATE INDEX frame_open_idx ON noetl.frame (stage_id, status, lease_until)
     WHERE status IN ('PENDING', 'CLAIMED', 'RUNNING')`,
  `CREATE INDEX idx_frame_lease ON noetl.frame (lease_until) WHERE status IN ('CLAIMED', 'RUNNING')`,
  `CREATE INDEX idx_frame_execution ON noetl.frame (execution_id)`,
  `CREATE INDEX idx_frame_command ON noetl.frame (command_id) WHERE command_id IS NOT NULL`,

  // --- durable timers -------------------------------------------------------
  `CREATE TABLE noetl.timer (
    timer_id         BIGINT PRIMARY KEY,
    execution_id     BIGINT NOT NULL,
    tenant_id        TEXT NOT NULL,
    organization_id  TEXT NOT NULL,
    purpose          TEXT NOT NULL,
    due_at           TIMESTAMPTZ NOT NULL,
    payload          JSONB NOT NULL DEFAULT '{}',
    created_event_id BIGINT,
    fired_at         TIMESTAMPTZ,
    fired_event_id   BIGINT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX idx_timer_due ON noetl.timer (due_at) WHERE fired_at IS NULL`,
  `CREATE INDEX idx_timer_execution ON noetl.timer (execution_id)`,

  // --- transactional outbox -------------------------------------------------
  `CREATE TABLE noetl.outbox (
    outbox_id       BIGSERIAL PRIMARY KEY,
    event_id        BIGINT NOT NULL,
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    execution_id    BIGINT NOT NULL,
    subject         TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    payload         JSONB NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at    TIMESTAMPTZ,
    attempts        INT NOT NULL DEFAULT 0,
    CONSTRAINT uq_outbox_event UNIQUE (event_id)
  )`,
  `CREATE INDEX idx_outbox_unpublished ON noetl.outbox (outbox_id) WHERE published_at IS NULL`,

  // --- content-addressed payloads -------------------------------------------
  `CREATE TABLE noetl.payload (
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    sha256          TEXT NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    media_type      TEXT NOT NULL,
    byte_length     INT NOT NULL CHECK (byte_length >= 0),
    data            BYTEA NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, organization_id, sha256)
  )`,

  // --- projector output -----------------------------------------------------
  `CREATE TABLE noetl.projection (
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    projection_type TEXT NOT NULL,
    projection_key  TEXT NOT NULL,
    execution_id    BIGINT,
    version         BIGINT NOT NULL,
    state           JSONB NOT NULL,
    checksum        TEXT NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, organization_id, projection_type, projection_key)
  )`,
  `CREATE INDEX idx_projection_execution ON noetl.projection (execution_id) WHERE execution_id IS NOT NULL`,
  `CREATE TABLE noetl.projection_snapshot (
    snapshot_id     BIGSERIAL PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    aggregate_type  TEXT NOT NULL,
    aggregate_id    TEXT NOT NULL,
    version         BIGINT NOT NULL,
    state           JSONB NOT NULL,
    reducer_version TEXT NOT NULL,
    registry_digest TEXT NOT NULL,
    checksum        TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT uq_projection_snapshot_version UNIQUE (tenant_id, organization_id, aggregate_type, aggregate_id, version)
  )`,

  // --- credentials (encrypted at rest; never in the ledger) -----------------
  `CREATE TABLE noetl.credential (
    tenant_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    name            TEXT NOT NULL,
    type            TEXT NOT NULL,
    ciphertext      BYTEA NOT NULL,
    iv              BYTEA NOT NULL,
    auth_tag        BYTEA NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, organization_id, name)
  )`,
];

const TABLES = [
  'credential',
  'projection_snapshot',
  'projection',
  'payload',
  'outbox',
  'timer',
  'frame',
  'stage',
  'command',
  'execution',
  'catalog',
  'event',
];

// Dropping a table drops its indexes; RESTRICT on the schema refuses to take
// anything down with it that this migration did not create.
const DOWN = [...TABLES.map((table) => `DROP TABLE IF EXISTS noetl.${table}`), `DROP SCHEMA IF EXISTS noetl RESTRICT`];
