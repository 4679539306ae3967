export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __embeddedPg?: { stop(): Promise<void> } };
  await g.__embeddedPg?.stop();
  g.__embeddedPg = undefined;
  delete process.env.TEST_ADMIN_DATABASE_URL;
}
