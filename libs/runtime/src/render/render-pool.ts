import { Worker } from 'node:worker_threads';
import { answerRenderRequest, RENDER_REQUEST_MODULE, type ExpressionEngine, type RenderReply, type RenderRequest } from '@noetl/dsl';
import { renderThreadMain, type RenderThreadData, type RenderThreadReply, type RenderThreadRequest } from './render-thread';

const THREAD_SOURCE = `(${renderThreadMain.toString()})()`;

interface Slot {
  thread: Worker;
  pending: Map<number, (reply: RenderReply) => void>;
}

/**
 * The threads that do the renders too heavy for the event loop (issue 25
 * item 7; see OffloadingRenderer): `threads` of them, started on first use,
 * each rendering with the full budget of `engine`'s limits, which bounds a
 * render's time, so a render is never cut short from outside. A render goes
 * to the thread with the fewest waiting. A thread that dies fails the
 * renders it held and is started again for the next one.
 */
export class RenderPool {
  private readonly slots: Array<Slot | undefined>;
  private readonly threadData: RenderThreadData;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly expressions: ExpressionEngine,
    threads: number,
  ) {
    this.slots = new Array<Slot | undefined>(Math.max(1, threads)).fill(undefined);
    this.threadData = { module: RENDER_REQUEST_MODULE, limits: { ...expressions.limits } };
  }

  /** The render's reply from a thread. A scope that cannot be sent to one (it holds a function, say) is rendered here, as before threads. */
  render(request: RenderRequest): Promise<RenderReply> {
    if (this.closed) return Promise.resolve({ failure: 'the render pool is closed' });
    const slot = this.freest();
    const id = this.nextId++;
    return new Promise<RenderReply>((resolve) => {
      try {
        slot.thread.postMessage({ id, request } satisfies RenderThreadRequest);
      } catch {
        resolve(answerRenderRequest(this.expressions, request));
        return;
      }
      slot.pending.set(id, resolve);
      slot.thread.ref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0).filter((slot): slot is Slot => slot !== undefined);
    await Promise.allSettled(slots.map((slot) => slot.thread.terminate()));
  }

  private freest(): Slot {
    let best = -1;
    for (let index = 0; index < this.slots.length; index++) {
      const slot = this.slots[index];
      if (!slot) {
        best = index;
        break;
      }
      if (best === -1 || slot.pending.size < this.slots[best]!.pending.size) best = index;
    }
    return this.slots[best] ?? (this.slots[best] = this.start(best));
  }

  private start(index: number): Slot {
    const thread = new Worker(THREAD_SOURCE, { eval: true, workerData: this.threadData });
    thread.unref();
    const slot: Slot = { thread, pending: new Map() };
    thread.on('message', ({ id, reply }: RenderThreadReply) => {
      const resolve = slot.pending.get(id);
      slot.pending.delete(id);
      if (slot.pending.size === 0) thread.unref();
      resolve?.(reply);
    });
    const fail = (reason: string): void => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
      for (const resolve of slot.pending.values()) resolve({ failure: `the render thread ${reason}` });
      slot.pending.clear();
    };
    thread.on('error', (error) => fail(`failed: ${error.message}`));
    thread.on('exit', (code) => fail(`exited with code ${code}`));
    return slot;
  }
}
