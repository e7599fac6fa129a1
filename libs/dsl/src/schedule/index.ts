// Schedules (DESIGN.md s6): the rules of fire times, pure (time is passed in).
export * from './schedule-spec';
export { readSchedule, type ScheduleReport } from './read-schedule';
export { nextFireTime, previousFireTime, cronProblem, isTimeZone } from './fire-times';
export { jitterMs } from './jitter';
export { planFires, firstFire, MAX_STARTS_PER_PASS, type FireInput, type FirePlan } from './plan-fires';
