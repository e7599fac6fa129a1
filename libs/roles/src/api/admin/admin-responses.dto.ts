import { ApiProperty } from '@nestjs/swagger';
import {
  ADMIN_TARGET_TYPES,
  AdminActions,
  STUCK_REASONS,
  WORK_KINDS,
  type AdminActionName,
  type AdminActionResult,
  type AdminTargetType,
  type StuckList,
  type StuckReason,
  type StuckWork,
  type WorkKind,
} from '@noetl/runtime';

export class StuckWorkDto implements StuckWork {
  @ApiProperty({ enum: WORK_KINDS })
  kind!: WorkKind;

  @ApiProperty({ description: 'The command or frame id' })
  id!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ description: "The command's step, or the frame's stage's" })
  step!: string;

  @ApiProperty({ description: 'ISSUED, CLAIMED or RUNNING (a command); PENDING, CLAIMED or RUNNING (a frame)' })
  status!: string;

  @ApiProperty({ type: 'integer', description: "A command's attempt number; a frame's claims so far" })
  attempt!: number;

  @ApiProperty({ type: 'integer', description: "A frame's is its stage's frame_policy.max_attempts" })
  max_attempts!: number;

  @ApiProperty({ type: String, nullable: true })
  worker_id!: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  lease_until!: string | null;

  @ApiProperty({
    enum: STUCK_REASONS,
    description:
      'lease_expired: the lease ran out; silent_heartbeat: lease valid but two heartbeat periods (a third of the lease each) passed silently; ' +
      'unclaimed: waiting for a worker over a minute; attempts_exhausted: a pending frame with every attempt spent',
  })
  reason!: StuckReason;
}

export class StuckListDto implements StuckList {
  @ApiProperty({ type: [StuckWorkDto] })
  stuck!: StuckWorkDto[];
}

export class AdminActionResultDto implements AdminActionResult {
  @ApiProperty({ enum: Object.values(AdminActions) })
  action!: AdminActionName;

  @ApiProperty({ enum: ADMIN_TARGET_TYPES })
  target_type!: AdminTargetType;

  @ApiProperty()
  target_id!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ description: 'The admin.action event recorded' })
  event_id!: string;

  @ApiProperty({ description: "The target's status after the action, e.g. ABANDONED, FAILED, PENDING (a reclaimed frame), CANCELLED" })
  status!: string;
}
