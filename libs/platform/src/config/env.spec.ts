import { z } from 'zod';
import { ConfigError, parseEnv, storageEnvSchema, storageEnvShape } from './env';

describe('environment validation at boot', () => {
  it('applies the documented defaults when nothing is set', () => {
    expect(parseEnv(storageEnvSchema, {})).toEqual({
      PG_DATA_DIR: '.data/postgres',
      EMBEDDED_PG_PORT: 54329,
      KAFKA_CLIENT_ID: 'hadron-pool-analytics',
      KAFKA_TOPIC_PREFIX: 'hadron',
      KAFKA_TOPIC_PARTITIONS: 6,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'auto',
    });
  });

  it('treats empty strings as unset, as .env files and compose write them', () => {
    expect(parseEnv(storageEnvSchema, { DATABASE_URL: '', KAFKA_BROKERS: '' }).DATABASE_URL).toBeUndefined();
  });

  it("takes the embedded server's shared_buffers as Postgres writes a size, and names the variable when it is not one", () => {
    expect(parseEnv(storageEnvSchema, { EMBEDDED_PG_SHARED_BUFFERS: '4GB' }).EMBEDDED_PG_SHARED_BUFFERS).toBe('4GB');
    expect(parseEnv(storageEnvSchema, { EMBEDDED_PG_SHARED_BUFFERS: '128kB' }).EMBEDDED_PG_SHARED_BUFFERS).toBe('128kB');
    for (const bad of ['4G', '4 GB', 'lots', '64kB', '0MB', '1.5GB', '-1GB', '512mb']) {
      expect(() => parseEnv(storageEnvSchema, { EMBEDDED_PG_SHARED_BUFFERS: bad })).toThrow(
        'invalid configuration: EMBEDDED_PG_SHARED_BUFFERS: must be a size such as 512MB or 4GB',
      );
    }
  });

  it('parses broker lists and ports', () => {
    const c = parseEnv(storageEnvSchema, { KAFKA_BROKERS: 'a:9092, b:9093', EMBEDDED_PG_PORT: '6000' });
    expect(c.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
    expect(c.EMBEDDED_PG_PORT).toBe(6000);
  });

  it('reports every malformed variable in one line naming each', () => {
    const schema = z.object({ ...storageEnvShape, PORT: storageEnvShape.EMBEDDED_PG_PORT });
    const run = () => parseEnv(schema, { DATABASE_URL: 'mysql://x', KAFKA_BROKERS: 'nohost', PORT: '70000', LOG_LEVEL: 'loud', LOG_FORMAT: 'fancy' });
    expect(run).toThrow(ConfigError);
    const message = (() => {
      try {
        run();
      } catch (e) {
        return (e as Error).message;
      }
    })()!;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^invalid configuration: /);
    for (const part of [
      'DATABASE_URL: must be a postgres:// URL',
      'KAFKA_BROKERS: expected host:port[,host:port]',
      'PORT: must be an integer 1..65535',
      'LOG_LEVEL',
      'LOG_FORMAT: must be one of json, pretty, auto',
    ]) {
      expect(message).toContain(part);
    }
  });
});
