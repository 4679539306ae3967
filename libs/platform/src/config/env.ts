import { z } from 'zod';

/** A missing or malformed variable: the process prints `message` on one line and exits 1. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Validates `env` against `schema` once at boot. Every problem is reported in one line, e.g.
 * `invalid configuration: PORT: must be an integer 1..65535; KAFKA_BROKERS: expected host:port[,host:port]`.
 */
export function parseEnv<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  // Empty strings mean "unset" (as docker-compose and .env files write them).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new ConfigError(`invalid configuration: ${problems}`);
}

export const envInt = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ invalid_type_error: `must be an integer ${min}..${max}` })
    .int(`must be an integer ${min}..${max}`)
    .min(min, `must be an integer ${min}..${max}`)
    .max(max, `must be an integer ${min}..${max}`)
    .default(fallback);

export const envBool = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', 'yes', 'no'], { errorMap: () => ({ message: 'must be true or false' }) })
    .transform((v) => v === '1' || v === 'true' || v === 'yes')
    .default(fallback ? 'true' : 'false');

export const postgresUrl = z.string().refine((v) => /^postgres(ql)?:\/\/[^\s]+$/.test(v), 'must be a postgres:// URL');

export const brokerList = z
  .string()
  .refine((v) => v.split(',').every((b) => /^[^\s:,]+:\d{1,5}$/.test(b.trim())), 'expected host:port[,host:port]')
  .transform((v) => v.split(',').map((b) => b.trim()));

const PG_MEMORY_KB: Record<string, number> = { kB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 };

/** A memory size as Postgres reads one in its settings: a whole number and a unit, at least 128kB (16 pages). */
export const pgMemorySize = z.string().refine((v) => {
  const m = /^([1-9][0-9]{0,12})(kB|MB|GB|TB)$/.exec(v);
  return m !== null && Number(m[1]) * PG_MEMORY_KB[m[2]] >= 128;
}, 'must be a size such as 512MB or 4GB (a whole number and kB, MB, GB or TB), at least 128kB');

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** LOG_FORMAT: JSON lines, human-readable text, or `auto` (pretty on a terminal, JSON otherwise). */
export const LOG_FORMATS = ['json', 'pretty', 'auto'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const logFormat = z.enum(LOG_FORMATS, { errorMap: () => ({ message: `must be one of ${LOG_FORMATS.join(', ')}` }) }).default('auto');

/** Variables every process reads: where the database and the event log are. */
export const storageEnvShape = {
  DATABASE_URL: postgresUrl.optional(),
  PG_DATA_DIR: z.string().default('.data/postgres'),
  EMBEDDED_PG_PORT: envInt(1, 65535, 54329),
  /** The embedded server's shared_buffers; unset: a quarter of the usable memory, 128 MB..8 GB. */
  EMBEDDED_PG_SHARED_BUFFERS: pgMemorySize.optional(),
  KAFKA_BROKERS: brokerList.optional(),
  KAFKA_CLIENT_ID: z.string().default('hadron-pool-analytics'),
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ - only')
    .default('hadron'),
  KAFKA_TOPIC_PARTITIONS: envInt(1, 1000, 6),
  LOG_LEVEL: logLevel,
  LOG_FORMAT: logFormat,
};
export const storageEnvSchema = z.object(storageEnvShape);
export type StorageConfig = z.infer<typeof storageEnvSchema>;
