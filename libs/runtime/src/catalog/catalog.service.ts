import { canonicalChecksum, type IdGenerator } from '@noetl/event-kernel';
import { parsePlaybook, PLAYBOOK_MODEL_FORMAT, type Playbook } from '@noetl/dsl';
import {
  CatalogRepository,
  SqlState,
  sqlStateOf,
  type CatalogRow,
  type Database,
  type LedgerTransaction,
  type Queryable,
  type TenantScope,
} from '@noetl/storage';
import { parse as parseYaml } from 'yaml';
import { RuntimeError } from '../runtime-error';
import type { CatalogEntry, PlaybookRef, RegisteredPlaybook } from './catalog-types';
import { playbookGraph, type PlaybookGraph } from './playbook-graph';

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
  /** The latest row of each path as last read (at most MAX_LATEST): what a start expects instead of reading (`resolve`). */
  private readonly latest = new Map<string, CatalogRow>();
  private readonly rows = new CatalogRepository();

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
      const where = first
        ? `${first.line !== undefined ? `line ${first.line}: ` : ''}${first.path ? `${first.path} ` : ''}${first.message}`
        : 'invalid';
      throw new RuntimeError(
        'invalid_playbook',
        `playbook is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}; first: ${where})`,
        problems,
      );
    }
    const checksum = canonicalChecksum(content);
    return this.db.transaction(async (q) => {
      // Versions of one path are numbered under a lock so two registrations never take the same number.
      await this.rows.lockPath(q, this.scope, playbook.path);
      const latest = await this.rows.latestVersion(q, this.scope, playbook.path);
      if (latest && latest.checksum === checksum) {
        // Applying the same declaration again keeps its fire times (fireStateAfter).
        if (options.schedule !== false) await this.applySchedule?.(q, playbook);
        return { catalog_id: latest.catalog_id, path: playbook.path, version: latest.version };
      }
      const catalogId = this.ids.next();
      const version = (latest?.version ?? 0) + 1;
      await this.rows.insert(q, this.scope, {
        catalogId,
        path: playbook.path,
        version,
        content,
        document: JSON.stringify(documentOf(content)),
        checksum,
        model: JSON.stringify(playbook),
        modelFormat: PLAYBOOK_MODEL_FORMAT,
      });
      if (options.schedule !== false) await this.applySchedule?.(q, playbook);
      this.parsed.set(catalogId, playbook);
      this.latest.delete(playbook.path);
      return { catalog_id: catalogId, path: playbook.path, version };
    });
  }

  /** The latest version of every path. */
  async list(): Promise<CatalogEntry[]> {
    return (await this.rows.latestOfEachPath(this.db, this.scope)).map(toEntry);
  }

  /** Every version of a path, newest first. */
  async versions(path: string): Promise<CatalogEntry[]> {
    return (await this.rows.versions(this.db, this.scope, path)).map(toEntry);
  }

  /**
   * The playbook a request names; throws `not_found`. `via`: read on that
   * connection (the caller's transaction). `expectLatest` (a transaction):
   * a path's latest version this process read before is not read again,
   * but checked in that transaction's next statement, which fails with
   * SqlState.PlaybookNotLatest when a newer version is there; the caller
   * then asks `forgotStaleLatest` and starts again.
   */
  async resolve(ref: PlaybookRef, via?: Queryable, expectLatest?: LedgerTransaction): Promise<ResolvedPlaybook> {
    const known = expectLatest && isLatestOfPath(ref) ? this.latest.get(ref.path) : undefined;
    if (known) await this.rows.expectLatest(expectLatest!, this.scope, known);
    const row = known ?? (await this.findRow(ref, via));
    if (!row) throw new RuntimeError('not_found', `playbook ${describeRef(ref)} is not registered`);
    if (!known && isLatestOfPath(ref)) this.rememberLatest(row);
    return { entry: toEntry(row), playbook: await this.model(row, via) };
  }

  /** Whether `error` says a version `resolve` expected is no longer its path's latest: then every version read is forgotten. */
  forgotStaleLatest(error: unknown): boolean {
    if (sqlStateOf(error) !== SqlState.PlaybookNotLatest) return false;
    this.latest.clear();
    return true;
  }

  private rememberLatest(row: CatalogRow): void {
    this.latest.delete(row.path);
    this.latest.set(row.path, row);
    if (this.latest.size > MAX_LATEST) this.latest.delete(this.latest.keys().next().value!);
  }

  /** A registered playbook's YAML as registered and its graph (the execution explorer's view); throws `not_found`. */
  async source(ref: PlaybookRef): Promise<CatalogEntry & { content: string; graph: PlaybookGraph }> {
    const { entry, playbook } = await this.resolve(ref);
    return { ...entry, content: (await this.rows.content(this.db, entry.catalog_id)) ?? '', graph: playbookGraph(playbook) };
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
    if (ref.catalog_id !== undefined) return /^\d{1,19}$/.test(ref.catalog_id) ? this.rows.byId(q, this.scope, ref.catalog_id) : undefined;
    if (ref.path === undefined) throw new RuntimeError('invalid_request', 'give the playbook "path" or "catalog_id"');
    return this.rows.byPath(q, this.scope, ref.path, ref.version);
  }

  /**
   * The parsed model of a row: cached, or read once per process: the model
   * stored at registration when it is of this process's format (JSON, no
   * YAML to parse), else the content parsed again.
   */
  private async model(row: CatalogRow, q: Queryable = this.db): Promise<Playbook> {
    const cached = this.parsed.get(row.catalog_id);
    if (cached) return cached;
    const stored = await this.rows.model<Playbook>(q, row.catalog_id, PLAYBOOK_MODEL_FORMAT);
    if (!stored) throw new Error(`catalog ${row.catalog_id} (${row.path} v${row.version}) has no row`);
    const playbook = stored.model ?? parsePlaybook(stored.content ?? '').playbook;
    // Stored content was valid when registered; a parser change that rejects it now is a bug to surface.
    if (!playbook) throw new Error(`catalog ${row.catalog_id} (${row.path} v${row.version}) no longer parses`);
    this.parsed.set(row.catalog_id, playbook);
    return playbook;
  }
}

/** Paths whose latest version a process keeps (`CatalogService.latest`). */
const MAX_LATEST = 1024;

/** A request for a path's latest version (no version, no catalog id). */
function isLatestOfPath(ref: PlaybookRef): ref is PlaybookRef & { path: string } {
  return ref.catalog_id === undefined && ref.path !== undefined && ref.version === undefined;
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
