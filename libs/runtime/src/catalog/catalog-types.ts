export interface CatalogEntry {
  catalog_id: string;
  path: string;
  version: number;
  name: string;
  created_at: string;
}

export interface RegisteredPlaybook {
  catalog_id: string;
  path: string;
  version: number;
}

/** Which playbook to run: by catalog id, or by path (latest version unless `version`). */
export interface PlaybookRef {
  path?: string;
  catalog_id?: string;
  version?: number;
}
