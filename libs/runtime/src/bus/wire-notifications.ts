import type { Notifications, ScopeFields } from './bus';

type Wire = Record<string, unknown> & ScopeFields;

/** A message with the tenant fields every notification carries, as an object to read the rest of. */
function scoped(message: unknown): Wire | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const wire = message as Record<string, unknown>;
  return typeof wire['tenant_id'] === 'string' && typeof wire['organization_id'] === 'string' ? (wire as Wire) : undefined;
}

const text = (wire: Wire, key: string): string | undefined => (typeof wire[key] === 'string' ? wire[key] : undefined);

/**
 * Reads a notification that came over the wire (NATS: another process, of
 * any version), one reader per kind of `Notifications`: the fields its
 * handler uses, or undefined for a message that lacks one. Notifications are
 * hints (DESIGN.md invariant 5), so a malformed one is dropped: the sweep
 * offers the work again.
 */
export const readNotification = {
  execution(message: unknown): Notifications['execution'] | undefined {
    const wire = scoped(message);
    const executionId = wire && text(wire, 'execution_id');
    return wire && executionId !== undefined
      ? { execution_id: executionId, tenant_id: wire.tenant_id, organization_id: wire.organization_id }
      : undefined;
  },

  work(message: unknown): Notifications['work'] | undefined {
    const offer = readOffer(message, 'command_id');
    return offer && (message as Record<string, unknown>)['alone'] === true ? { ...offer, alone: true } : offer;
  },

  frames(message: unknown): Notifications['frames'] | undefined {
    return readOffer(message, 'stage_id');
  },
};

/** An offer's fields: the id of what to claim (`idKey`), its execution, its tenant and the trace context it carries. */
function readOffer<K extends 'command_id' | 'stage_id'>(
  message: unknown,
  idKey: K,
): (ScopeFields & Record<K, string> & { execution_id: string; traceparent?: string }) | undefined {
  const wire = scoped(message);
  const id = wire && text(wire, idKey);
  const executionId = wire && text(wire, 'execution_id');
  if (!wire || id === undefined || executionId === undefined) return undefined;
  const traceparent = text(wire, 'traceparent');
  const offer = {
    execution_id: executionId,
    tenant_id: wire.tenant_id,
    organization_id: wire.organization_id,
    ...(traceparent !== undefined ? { traceparent } : {}),
  };
  return Object.assign(offer, { [idKey]: id } as Record<K, string>);
}
