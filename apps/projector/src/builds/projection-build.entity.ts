import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The build registry: every build of every projection, its schema, its consumer group and its
 * status. Exactly one `active` build per projection is what `read.*` views point at; a restarted
 * projector resumes that build's consumer group.
 */
@Entity({ schema: 'projector', name: 'projection_builds' })
@Index('projection_builds_one_active', ['projection'], { unique: true, where: `status = 'active'` })
@Index('projection_builds_schema_name_key', ['schemaName'], { unique: true })
@Index('projection_builds_consumer_group_key', ['consumerGroup'], { unique: true })
export class ProjectionBuildEntity {
  @PrimaryColumn({ type: 'text' })
  projection: string;

  @PrimaryColumn({ type: 'text', name: 'build_id' })
  buildId: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'text', name: 'schema_name' })
  schemaName: string;

  @Column({ type: 'text', name: 'consumer_group' })
  consumerGroup: string;

  /** building → active → retired → dropped. */
  @Column({ type: 'text' })
  status: string;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'activated_at', nullable: true })
  activatedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'retired_at', nullable: true })
  retiredAt: Date | null;
}
