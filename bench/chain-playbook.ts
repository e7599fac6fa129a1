/** A playbook at `path` of `steps` `noop` steps, each routing to the next: the per-step overhead and nothing else. */
export function chainPlaybook(steps: number, path: string): string {
  const body = Array.from({ length: steps }, (_, i) => {
    const next = i + 1 < steps ? `\n    next: [{step: s${i + 1}}]` : '';
    return `  - step: ${i === 0 ? 'start' : `s${i}`}\n    tool: {kind: noop}${next}`;
  });
  const name = path.replace(/[^a-z0-9]+/gi, '_');
  return `apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: ${name}, path: ${path}}\nworkflow:\n${body.join('\n')}\n`;
}
