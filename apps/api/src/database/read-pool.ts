import type { Pool } from 'pg';
import { createPool, endPool } from '@hadron/platform/database/pool';
import type { Logger } from '@hadron/platform/logging/logger';
import { redactUrl } from '@hadron/platform/logging/redact';
import type { ApiConfig } from '../api.config';

/**
 * The pool the API reads from: a pool of its own on DATABASE_READ_URL (a hot-standby replica)
 * when set, otherwise `primary` (the storage's pool, which `close` leaves to its owner). Only the
 * API reads a replica: writes, checkpoints and migrations stay on DATABASE_URL.
 */
export function openReadPool(
  primary: Pool,
  config: Pick<ApiConfig, 'DATABASE_READ_URL'>,
  log: Logger,
  opts: { poolSize: number; application: string },
): { pool: Pool; close(): Promise<void> } {
  const url = config.DATABASE_READ_URL;
  if (!url) return { pool: primary, close: async () => undefined };
  log.info({ database: redactUrl(url) }, 'api reads from DATABASE_READ_URL');
  const pool = createPool(url, { max: opts.poolSize, application: opts.application });
  return { pool, close: () => endPool(pool) };
}
