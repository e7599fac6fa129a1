/**
 * `noetl workers | head -1`: once the reader has closed the pipe, there is
 * no one left to print to, so the command ends quietly (exit 0) instead of
 * crashing on EPIPE with a stack trace.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}
