import type { Playbook } from '@noetl/dsl';
import type { IdGenerator } from '@noetl/event-kernel';
import type { Queryable, ScheduleRepository, TenantScope } from '@noetl/storage';
import { definitionOf, fireStateAfter } from './schedule-definition';

/**
 * A playbook's `metadata.schedule`, applied when a new version of it is
 * registered (in the registration's transaction): the path's declared
 * schedule (`source: playbook`, one per path, running the latest version) is
 * created, or rewritten to the new declaration, or deleted when the new
 * version declares none. A schedule paused through the API stays paused
 * unless the declaration says `paused` itself.
 */
export class DeclaredSchedules {
  constructor(private readonly deps: { rows: ScheduleRepository; ids: IdGenerator; scope: TenantScope; now: () => Date }) {}

  async apply(q: Queryable, playbook: Playbook): Promise<void> {
    const { rows, scope } = this.deps;
    const existing = await rows.declared(q, scope, playbook.path);
    const spec = playbook.schedule;
    if (!spec) {
      if (existing) await rows.delete(q, scope, existing.schedule_id);
      return;
    }
    const definition = definitionOf(playbook.path, null, spec, spec.paused ?? existing?.paused ?? false);
    const now = this.deps.now();
    if (existing) {
      await rows.update(q, existing.schedule_id, { ...definition, ...fireStateAfter(existing.schedule_id, existing, definition, now) });
      return;
    }
    const scheduleId = this.deps.ids.next();
    await rows.insert(q, scope, {
      schedule_id: scheduleId,
      source: 'playbook',
      ...definition,
      ...fireStateAfter(scheduleId, undefined, definition, now),
    });
  }
}
