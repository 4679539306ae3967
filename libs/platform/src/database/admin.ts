import { Client } from 'pg';

/** Runs `fn` on a one-off connection (database administration: CREATE / DROP DATABASE), always closing it. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  c.on('error', () => undefined); // a lost connection fails fn's queries instead
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
