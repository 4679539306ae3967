import type { Pool } from 'pg';

/**
 * Each running component publishes how far behind it is (e.g. `projector:pools`), so readiness can
 * be judged by any process that reaches the database, whichever log adapter is in use.
 */
export async function publishStatus(pool: Pool, component: string, lag: bigint, detail: Record<string, unknown> = {}): Promise<void> {
  await pool.query(
    `INSERT INTO component_status (component, lag, detail, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (component) DO UPDATE SET lag = EXCLUDED.lag, detail = EXCLUDED.detail, updated_at = now()`,
    [component, lag.toString(), JSON.stringify(detail)],
  );
}
