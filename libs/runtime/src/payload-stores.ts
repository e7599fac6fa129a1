import type { NoetlConfig } from '@noetl/config';
import { PgPayloadStore, S3PayloadStore, TieredPayloadStore, type PayloadStore, type Queryable } from '@noetl/storage';

/** The payload store of a process, as its configuration selects it (docs/operations.md "Payload storage"). */
export interface PayloadStores {
  /** On the database's pool. */
  store: PayloadStore;
  /** On one transaction's connection: its database tier writes with the transaction (the object tier cannot). */
  within(q: Queryable): PayloadStore;
  /** The object tier, with `NOETL_PAYLOAD_STORE=s3`: retention lists and deletes its objects. */
  objects?: S3PayloadStore;
}

export async function openPayloadStores(config: NoetlConfig['payloads'], database: Queryable): Promise<PayloadStores> {
  const { s3 } = config;
  if (!s3) return { store: new PgPayloadStore(database), within: (q) => new PgPayloadStore(q) };
  const objects = await S3PayloadStore.connect(s3);
  const tiered = (q: Queryable): PayloadStore => new TieredPayloadStore(new PgPayloadStore(q), objects, s3.minBytes);
  return { store: tiered(database), within: tiered, objects };
}
