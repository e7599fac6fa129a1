import { NatsError, type JetStreamManager } from 'nats';

/** JetStream's error code for a sequence the stream has no message at (JSNoMessageFoundErr); nats.js names none. */
const NO_MESSAGE_FOUND = 10037;
/** How long a sequence past the stream's last may take to commit (a proposal under way), and how often it is looked for. */
const PENDING_WAIT_MS = 2_000;
const PENDING_POLL_MS = 100;

/**
 * Whether the stream holds the message a duplicate ack names: the message
 * at `seq` carries `msgId`. JetStream remembers a message id as its stream
 * leader proposes the message, and nats-server 2.9 keeps it when the
 * proposal is lost with the quorum (a leader killed mid-write, chaos
 * `nats-node-loss`): a repeat is then acked as a duplicate of a sequence
 * the stream never got, and an event would be in the ledger and never in
 * the stream. Before the stream's first sequence the message went by the
 * stream's limits: held. Past its last it may be a proposal still being
 * committed: waited for a moment, then taken as lost.
 */
export async function streamHolds(jsm: JetStreamManager, stream: string, seq: number, msgId: string): Promise<boolean> {
  const deadline = Date.now() + PENDING_WAIT_MS;
  for (;;) {
    try {
      return (await jsm.streams.getMessage(stream, { seq })).header?.get('Nats-Msg-Id') === msgId;
    } catch (error) {
      if (!(error instanceof NatsError && error.api_error?.err_code === NO_MESSAGE_FOUND)) throw error;
    }
    const { state } = await jsm.streams.info(stream);
    if (seq < state.first_seq) return true;
    if (seq <= state.last_seq || Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
  }
}
