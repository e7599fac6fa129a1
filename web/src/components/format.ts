/** Local date and time of an ISO timestamp, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** How long from start to end (or to now while it runs), e.g. 1.2 s or 3 min 4 s. */
export function duration(start: string | null | undefined, end: string | null | undefined): string {
  if (!start) return '—';
  const ms = (end ? Date.parse(end) : Date.now()) - Date.parse(start);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
