import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'component_status' })
export class ComponentStatusEntity {
  @PrimaryColumn({ type: 'text' })
  component: string;

  @Column({ type: 'bigint' })
  lag: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  detail: Record<string, unknown>;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
