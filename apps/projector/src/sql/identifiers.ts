/** Build schema names are generated, but they still pass this check before reaching any SQL text. */
const SAFE = /^[a-z][a-z0-9_]{0,62}$/;

export function quoteIdent(name: string): string {
  if (!SAFE.test(name)) throw new Error(`unsafe SQL identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** `proj_<projection>_v<version>_<buildId>`, e.g. proj_swaps_v1_initial. */
export function buildSchemaName(projection: string, version: number, buildId: string): string {
  const name = `proj_${projection.replace(/-/g, '_')}_v${version}_${buildId}`;
  quoteIdent(name);
  return name;
}

/** Consumer group of a build: `<projection>.v<version>.<buildId>` (a new group replays from the start). */
export function buildConsumerGroup(projection: string, version: number, buildId: string): string {
  return `${projection}.v${version}.${buildId}`;
}

/** `ts` floored to a multiple of `size` seconds, in SQL (correct for negative times too). */
export function sqlBucket(ts: string, size: number): string {
  return `(${ts} - (((${ts}) % ${size}) + ${size}) % ${size})`;
}
