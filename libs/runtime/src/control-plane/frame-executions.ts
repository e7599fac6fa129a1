/** Frames remembered at most: a frame claimed here and never reported (its worker died) must not stay forever. */
const MAX_REMEMBERED = 50_000;

/**
 * The executions of the frames this control plane leased, so their commits
 * queue by execution without a look-up (see LocalFrames.commit). A frame it
 * does not know (claimed through another process) is looked up instead.
 */
export class FrameExecutions {
  private readonly byFrame = new Map<string, string>();

  remember(frameId: string, executionId: string): void {
    this.byFrame.delete(frameId);
    this.byFrame.set(frameId, executionId);
    if (this.byFrame.size > MAX_REMEMBERED) this.byFrame.delete(this.byFrame.keys().next().value!);
  }

  of(frameId: string): string | undefined {
    return this.byFrame.get(frameId);
  }

  forget(frameId: string): void {
    this.byFrame.delete(frameId);
  }
}
