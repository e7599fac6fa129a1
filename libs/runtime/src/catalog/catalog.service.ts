import { canonicalChecksum, type IdGenerator } from '@noetl/event-kernel';
import { parsePlaybook, PLAYBOOK_MODEL_FORMAT, type Playbook } from '@noetl/dsl';
import { prepared, type Database, type Queryable, type TenantScope } from '@noetl/storage';
import { parse as parseYaml } from 'yaml';
import { RuntimeError } from '../runtime-error';
import type { CatalogEntry, PlaybookRef, RegisteredPlaybook } from './catalog-types';
import { playbookGraph, type PlaybookGraph } from './playbook-graph';

/** A catalog row without its content: what a lookup reads (a start parses nothing when the model is cached). */
interface CatalogRow {
  catalog_id: string;
  path: string;
  version: number;
  name: string | null;
  created_at: Date;
}

const ENTRY_COLUMNS = `catalog_id, path, version, playbook->'metadata'->>'name' AS name, created_at`;
// Prepared (one per shape, as a generic plan needs), so a start's lookup goes with its BEGIN in one round trip.
const ENTRY_SQL = `SELECT ${ENTRY_COLUMNS} FROM noetl.catalog WHERE tenant_id = $1 AND organization_id = $2`;
const BY_ID_SQL = prepared(`${ENTRY_SQL} AND catalog_id = $3::bigint`);
const LATEST_SQL = prepared(`${ENTRY_SQL} AND path = $3 ORDER BY version DESC LIMIT 1`);
const VERSION_SQL = prepared(`${ENTRY_SQL} AND path = $3 AND version = $4::int`);
/** A row's stored model when it is of format $2, else its content to parse (never both: a model is the larger read). */
const STORED_MODEL_SQL = `SELECT CASE WHEN model_format = $2 THEN model END AS model, CASE WHEN model_format IS DISTINCT FROM $2 THEN content END AS content
                            FROM noetl.catalog WHERE catalog_id = $1::bigint`;

/** A registered playbook: its catalog row and the parsed model. */
export interface ResolvedPlaybook {
  entry: CatalogEntry;
  playbook: Playbook;
}

/** Applies a newly registered version's `metadata.schedule` (or its absence) in the registration's transaction. */
export type ApplyDeclaredSchedule = (q: Queryable, playbook: Playbook) => Promise<void>;

/**
 * The playbook catalog, keyed by tenant, organization and path (NoETL
 * fixtures README s6.10). Registering validates the whole document first:
 * nothing invalid is stored. Each registration of a path is a new version
 * (1, 2, ...); re-registering identical content returns the existing version.
 * The registered version's `metadata.schedule` is applied to the path's
 * declared schedule in the same transaction (`applySchedule`), also when the
 * content was there already: `noetl run` registers without applying it.
 */
export class CatalogService {
  /** Parsed models by catalog id: a catalog row never changes once written. */
  private readonly parsed = new Map<string, Playbook>();

  constructor(
    private readonly db: Database,
    private readonly ids: IdGenerator,
    private readonly scope: TenantScope,
    private readonly applySchedule?: ApplyDeclaredSchedule,
  ) {}

  /**
   * Throws RuntimeError `invalid_playbook` with `details: [{path, line, column, message}]`.
   * `schedule: false` registers without touching schedules (`noetl run`, a one-shot).
   */
  async register(content: string, options: { schedule?: boolean } = {}): Promise<RegisteredPlaybook> {
    const { playbook, problems } = parsePlaybook(content);
    if (!playbook) {
      const first = problems[0];
      const where = first ? `${first.line !== undefined ? `line ${first.line}: ` : ''}${first.path ? `${first.path} ` : ''}${first.message}` : 'invalid';
      throw new RuntimeError('invalid_playbook', `playbook is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}; first: ${where})`, problems);
    }
    const checksum = canonicalChecksum(content);
    return this.db.transaction(async (q) => {
      // Versions of one path are numbered under a lock so two registrations never take the same number.
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`catalog:${this.scope.tenantId}:${this.scope.organizationId}:${playbook.path}`]);
      const [latest] = await q.query<{ catalog_id: string; version: number; checksum: string }>(
        `SELECT catalog_id, version, checksum FROM noetl.catalog
          WHERE tenant_id = $1 AND organization_id = $2 AND path = $3 ORDER BY version DESC LIMIT 1`,
        [this.scope.tenantId, this.scope.organizationId, playbook.path],
      );
      if (latest && latest.checksum === checksum) {
        // Applying the same declaration again keeps its fire times (fireStateAfter).
        if (options.schedule !== false) await this.applySchedule?.(q, playbook);
        return { catalog_id: latest.catalog_id, path: playbook.path, version: latest.version };
      }
      const catalogId = this.ids.next();
      const version = (latest?.version ?? 0) + 1;
      await q.query(
        `INSERT INTO noetl.catalog (catalog_id, tenant_id, organization_id, path, version, content, playbook, checksum, model, model_format)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::json, $10)`,
        [
          catalogId,
          this.scope.tenantId,
          this.scope.organizationId,
          playbook.path,
          version,
          content,
          JSON.stringify(documentOf(content)),
          checksum,
          JSON.stringify(playbook),
          PLAYBOOK_MODEL_FORMAT,
        ],
      );
      if (options.schedule !== false) await this.applySchedule?.(q, playbook);
      this.parsed.set(catalogId, playbook);
      return { catalog_id: catalogId, path: playbook.path, version };
    });
  }

  /** The latest version of every path. */
  async list(): Promise<CatalogEntry[]> {
    const rows = await this.db.query<CatalogRow>(
      `SELECT DISTINCT ON (path) ${ENTRY_COLUMNS} FROM noetl.catalog
        WHERE tenant_id = $1 AND organization_id = $2 ORDER BY path, version DESC`,
      [this.scope.tenantId, this.scope.organizationId],
    );
    return rows.map(toEntry);
  }

  /** Every version of a path, newest first. */
  async versions(path: string): Promise<CatalogEntry[]> {
    const rows = await this.db.query<CatalogRow>(
      `SELECT ${ENTRY_COLUMNS} FROM noetl.catalog
        WHERE tenant_id = $1 AND organization_id = $2 AND path = $3 ORDER BY version DESC`,
      [this.scope.tenantId, this.scope.organizationId, path],
    );
    return rows.map(toEntry);
  }

  /** The playbook a request names; throws `not_found`. `via`: read on that connection (the caller's transaction). */
  async resolve(ref: PlaybookRef, via?: Queryable): Promise<ResolvedPlaybook> {
    const row = await this.findRow(ref, via);
    if (!row) throw new RuntimeError('not_found', `playbook ${describeRef(ref)} is not registered`);
    return { entry: toEntry(row), playbook: await this.model(row, via) };
  }

  /** A registered playbook's YAML as registered and its graph (the execution explorer's view); throws `not_found`. */
  async source(ref: PlaybookRef): Promise<CatalogEntry & { content: string; graph: PlaybookGraph }> {
    const { entry, playbook } = await this.resolve(ref);
    const [stored] = await this.db.query<{ content: string }>('SELECT content FROM noetl.catalog WHERE catalog_id = $1::bigint', [entry.catalog_id]);
    return { ...entry, content: stored?.content ?? '', graph: playbookGraph(playbook) };
  }

  /**
   * The parsed model of a catalog id (what the scheduler plans with); throws
   * `not_found`. `via`: read on that connection (a caller holding a lock).
   */
  async playbook(catalogId: string, via?: Queryable): Promise<Playbook> {
    const cached = this.parsed.get(catalogId);
    if (cached) return cached;
    const row = await this.findRow({ catalog_id: catalogId }, via);
    if (!row) throw new RuntimeError('not_found', `playbook with catalog id ${catalogId} is not registered`);
    return this.model(row, via);
  }

  private async findRow(ref: PlaybookRef, q: Queryable = this.db): Promise<CatalogRow | undefined> {
    const scope = [this.scope.tenantId, this.scope.organizationId];
    if (ref.catalog_id !== undefined) {
      if (!/^\d{1,19}$/.test(ref.catalog_id)) return undefined;
      const [row] = await q.query<CatalogRow>(BY_ID_SQL, [...scope, ref.catalog_id]);
      return row;
    }
    if (ref.path === undefined) throw new RuntimeError('invalid_request', 'give the playbook "path" or "catalog_id"');
    const [row] = ref.version === undefined ? await q.query<CatalogRow>(LATEST_SQL, [...scope, ref.path]) : await q.query<CatalogRow>(VERSION_SQL, [...scope, ref.path, ref.version]);
    return row;
  }

  /**
   * The parsed model of a row: cached, or read once per process: the model
   * stored at registration when it is of this process's format (JSON, no
   * YAML to parse), else the content parsed again.
   */
  private async model(row: CatalogRow, q: Queryable = this.db): Promise<Playbook> {
    const cached = this.parsed.get(row.catalog_id);
    if (cached) return cached;
    const [stored] = await q.query<{ model: Playbook | null; content: string | null }>(STORED_MODEL_SQL, [row.catalog_id, PLAYBOOK_MODEL_FORMAT]);
    if (!stored) throw new Error(`catalog ${row.catalog_id} (${row.path} v${row.version}) has no row`);
    const playbook = stored.model ?? parsePlaybook(stored.content ?? '').playbook;
    // Stored content was valid when registered; a parser change that rejects it now is a bug to surface.
    if (!playbook) throw new Error(`catalog ${row.catalog_id} (${row.path} v${row.version}) no longer parses`);
    this.parsed.set(row.catalog_id, playbook);
    return playbook;
  }
}

function documentOf(content: string): unknown {
  return parseYaml(content) ?? {};
}

function toEntry(row: CatalogRow): CatalogEntry {
  return {
    catalog_id: String(row.catalog_id),
    path: row.path,
    version: row.version,
    name: row.name ?? row.path,
    created_at: row.created_at.toISOString(),
  };
}

function describeRef(ref: PlaybookRef): string {
  if (ref.catalog_id !== undefined) return `with catalog id ${ref.catalog_id}`;
  return `"${ref.path ?? ''}"${ref.version !== undefined ? ` version ${ref.version}` : ''}`;
}
