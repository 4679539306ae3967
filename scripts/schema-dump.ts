import { Client } from 'pg';

/**
 * The schema of a database as stable, diff-friendly text: every relation of our schemas with its
 * columns (type, nullability, default), constraints, indexes, view definitions, functions and
 * triggers. scripts/check-migrations.ts compares it, for a fresh database migrated from scratch,
 * with the committed scripts/schema.snapshot.txt.
 */
export async function dumpSchema(url: string): Promise<string> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const q = async (text: string) => (await c.query<Record<string, string>>(text)).rows;
    const ours = `n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'`;
    const out: string[] = [];
    for (const r of await q(`SELECT nspname FROM pg_namespace n WHERE ${ours} AND nspname <> 'public' ORDER BY 1`)) out.push(`schema ${r.nspname}`);
    const kinds: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', S: 'sequence' };
    const relations = await q(
      `SELECT c.oid, n.nspname || '.' || c.relname AS name, c.relkind, CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS def
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${ours} AND c.relkind IN ('r', 'p', 'v', 'm', 'S') ORDER BY 2`,
    );
    const columns = await q(
      `SELECT a.attrelid::text AS rel, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull::text AS notnull, pg_get_expr(d.adbin, d.adrelid) AS dflt
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum`,
    );
    const constraints = await q(
      `SELECT con.conrelid::text AS rel, con.conname, pg_get_constraintdef(con.oid, true) AS def
         FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace WHERE ${ours} ORDER BY 1, 2`,
    );
    const indexes = await q(`SELECT i.indrelid::text AS rel, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i ORDER BY 2`);
    const triggers = await q(`SELECT t.tgrelid::text AS rel, pg_get_triggerdef(t.oid, true) AS def FROM pg_trigger t WHERE NOT t.tgisinternal ORDER BY 2`);
    const byRel = <T extends Record<string, string>>(rows: T[]) => {
      const m = new Map<string, T[]>();
      for (const r of rows) m.set(r.rel, [...(m.get(r.rel) ?? []), r]);
      return m;
    };
    const [cols, cons, idx, trg] = [byRel(columns), byRel(constraints), byRel(indexes), byRel(triggers)];
    for (const rel of relations) {
      out.push('', `${kinds[rel.relkind]} ${rel.name}`);
      if (rel.relkind !== 'S')
        for (const col of cols.get(String(rel.oid)) ?? [])
          out.push(`  ${col.attname} ${col.type}${col.notnull === 'true' ? ' NOT NULL' : ''}${col.dflt ? ` DEFAULT ${col.dflt}` : ''}`);
      for (const con of cons.get(String(rel.oid)) ?? []) out.push(`  constraint ${con.conname}: ${con.def}`);
      for (const i of idx.get(String(rel.oid)) ?? []) out.push(`  ${i.def}`);
      for (const t of trg.get(String(rel.oid)) ?? []) out.push(`  ${t.def}`);
      if (rel.def) out.push(...`  AS ${rel.def.trim()}`.split('\n').map((l) => `  ${l.trimEnd()}`));
    }
    const functions = await q(
      `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${ours} AND p.prokind IN ('f', 'p') ORDER BY n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)`,
    );
    for (const f of functions)
      out.push(
        '',
        ...f.def
          .trim()
          .split('\n')
          .map((l) => l.trimEnd()),
      );
    return `${out.join('\n')}\n`;
  } finally {
    await c.end();
  }
}
