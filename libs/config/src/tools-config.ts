/** What user code runs inside (README "Isolation"). */
export interface ToolsConfig {
  /**
   * `refuse` (default): postgres steps cannot reach the runtime's own database, however it is
   * spelled, nor its cluster as a role with power over it (a superuser, ...). `database`: only the
   * database itself is refused (a laptop whose playbooks log in as the local superuser). `allow`: neither.
   */
  ledgerAccess: 'refuse' | 'database' | 'allow';
  javascript: {
    /** Sandbox threads; absent: the CPU count, at most 4. */
    threads?: number;
    memoryMb: number;
    /** Ceiling of any step's `timeout`. */
    maxTimeoutSeconds: number;
  };
  python: {
    /** Who python steps run as when the worker is root: a name, uid or uid:gid. */
    user: string;
    /**
     * `refuse` (default): a worker that opens the ledger probes its cluster at start, and refuses
     * python steps when it accepts a login without a password from this host (pg_hba `trust`).
     * `allow`: no probe (unsafe, for setups whose python steps are trusted).
     */
    ledgerAccess: 'refuse' | 'allow';
    /** Address space (RLIMIT_AS) of a step's processes. */
    memoryMb: number;
    /** The largest file a step's processes may write (RLIMIT_FSIZE): what one step can put on the worker's disk. */
    fileMb: number;
    /** Ceiling of any step's `timeout`. */
    maxTimeoutSeconds: number;
  };
  /** Ceiling of any http step's `timeout`. */
  http: { maxTimeoutSeconds: number };
}
