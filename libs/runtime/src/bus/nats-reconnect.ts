/**
 * Every NATS connection of the runtime reconnects for as long as it takes.
 * nats.js gives up after 10 attempts 2 s apart by default: a NATS outage of
 * 30 s left the processes connected to nothing for good, executions stuck
 * and the projector's consumer stopped (found by the chaos harness, issue 14,
 * nats-down). Messages are notifications (DESIGN.md invariant 5): the sweep
 * keeps work moving while NATS is away, and it must be heard again after.
 */
export const NATS_RECONNECT_FOREVER = { reconnect: true, maxReconnectAttempts: -1 } as const;
