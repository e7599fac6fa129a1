/**
 * The OpenAPI operation id of each route, `Controller.method` -> a name that
 * says what the call does (clients generated from /docs-json take these as
 * their method names). A route missing here keeps Nest's default
 * `Controller_method`, which the OpenAPI e2e spec refuses.
 */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  'AdminController.stuck': 'listStuckWork',
  'AdminController.reclaimCommand': 'reclaimCommand',
  'AdminController.failCommand': 'failCommand',
  'AdminController.reclaimFrame': 'reclaimFrame',
  'AdminController.failFrame': 'failFrame',
  'AdminController.finalize': 'finalizeExecution',
  'AdminController.purge': 'purgeExecution',
  'AdminController.cancel': 'adminCancelExecution',
  'ApiKeysController.me': 'getCaller',
  'ApiKeysController.create': 'createApiKey',
  'ApiKeysController.list': 'listApiKeys',
  'ApiKeysController.revoke': 'revokeApiKey',
  'CatalogController.register': 'registerPlaybook',
  'CatalogController.list': 'listPlaybooks',
  'CatalogController.versions': 'listPlaybookVersions',
  'ChildrenController.start': 'startChildExecution',
  'ChildrenController.outcome': 'getChildOutcome',
  'CommandsController.claim': 'claimCommand',
  'CommandsController.heartbeat': 'heartbeatCommand',
  'CommandsController.complete': 'completeCommand',
  'CommandsController.fail': 'reportCommandFailure',
  'CommandsController.partial': 'reportPartialResult',
  'CommandsController.release': 'releaseCommand',
  'CommandsController.child': 'startCommandChild',
  'CommandsController.credential': 'resolveCommandCredential',
  'FramesController.claim': 'claimFrame',
  'FramesController.heartbeat': 'heartbeatFrame',
  'FramesController.commit': 'commitFrame',
  'FramesController.fail': 'reportFrameFailure',
  'FramesController.release': 'releaseFrame',
  'FramesController.credential': 'resolveFrameCredential',
  'WorkerEventsController.record': 'recordWorkerEvents',
  'CredentialsController.put': 'putCredential',
  'CredentialsController.list': 'listCredentials',
  'CredentialsController.get': 'getCredential',
  'CredentialsController.delete': 'deleteCredential',
  'ExecutionsController.execute': 'executePlaybook',
  'ExecutionsController.list': 'listExecutions',
  'ExecutionsController.get': 'getExecution',
  'ExecutionsController.events': 'listExecutionEvents',
  'ExecutionsController.cancel': 'cancelExecution',
  'ExecutionsController.signal': 'sendSignal',
  'HealthController.live': 'checkLiveness',
  'HealthController.ready': 'checkReadiness',
  'MetricsController.metrics': 'getMetrics',
  'ReplayController.state': 'replayState',
  'SchedulesController.create': 'createSchedule',
  'SchedulesController.list': 'listSchedules',
  'SchedulesController.get': 'getSchedule',
  'SchedulesController.update': 'updateSchedule',
  'SchedulesController.delete': 'deleteSchedule',
  'SchedulesController.trigger': 'triggerSchedule',
  'SchemaController.playbookSchema': 'getPlaybookSchema',
  'WorkersController.list': 'listWorkers',
  'WorkersController.heartbeat': 'heartbeatWorker',
};

/** SwaggerModule's `operationIdFactory`. */
export function operationId(controllerKey: string, methodKey: string): string {
  return OPERATION_IDS[`${controllerKey}.${methodKey}`] ?? `${controllerKey}_${methodKey}`;
}
