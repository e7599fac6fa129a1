/** A status word in its colour (styles.css: .status-RUNNING, ...). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${status}`}>{status}</span>;
}
