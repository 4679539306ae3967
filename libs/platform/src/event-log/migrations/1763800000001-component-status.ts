import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ComponentStatus1763800000001 implements MigrationInterface {
  name = 'ComponentStatus1763800000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "component_status" (
      "component" text NOT NULL,
      "lag" bigint NOT NULL,
      "detail" jsonb NOT NULL DEFAULT '{}',
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      CONSTRAINT "PK_component_status" PRIMARY KEY ("component"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "component_status"`);
  }
}
