import { isTerminalCommand, type CommandRow, type LockedCommand } from '@noetl/storage';
import { RuntimeError, notFound } from '../runtime-error';
import { holdsLease, type Holder } from './lease-token';

/** The command, unless it is unknown, ended, or its execution ended: such a command takes no more reports. */
export function usableCommand(commandId: string, command: LockedCommand | undefined): LockedCommand {
  if (!command) throw notFound('command', commandId);
  if (isTerminalCommand(command.status)) throw alreadyTerminal(command);
  if (command.execution_ended) {
    throw new RuntimeError('already_terminal', `execution ${command.execution_id} of command ${commandId} already ended`);
  }
  return command;
}

/** The lease is the worker's and its token matches; a worker id alone proves nothing (it is in the events). */
export function assertCommandHolder(command: CommandRow, holder: Holder): void {
  if (command.status === 'ISSUED' || !holdsLease(command, holder)) {
    throw new RuntimeError('lease_lost', `worker ${holder.worker_id} does not hold command ${command.command_id} (${command.status})`);
  }
}

export function alreadyTerminal(command: CommandRow): RuntimeError {
  return new RuntimeError('already_terminal', `command ${command.command_id} is already ${command.status}`);
}
