import type { PoolClient } from 'pg';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { mulberry32 } from '../../test-support/event-generator';
import { StagingTable, stagedText, type StagedColumn } from './staging';

/**
 * The COPY text a staging table is loaded with, checked by Postgres itself: fuzzed values go in
 * through `StagingTable.with` (COPY … FROM STDIN) and must come back unchanged, row for row.
 */
describe('staging table COPY text, read back by Postgres', () => {
  let db: TestDatabase;
  let client: PoolClient;
  const staging = new StagingTable('staging_probe', [
    ['i', 'int4'],
    ['t', 'text'],
    ['n', 'int8'],
    ['b', 'bool'],
    ['d', 'numeric'],
  ]);

  beforeAll(async () => {
    db = await createTestDatabase();
    client = await db.pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await db?.drop();
  });

  /** Every row as COPY put it in the table, in `i` order. */
  const roundTrip = async (columns: StagedColumn[]) => {
    await client.query('BEGIN');
    try {
      return await staging.with(client, stagedText(columns), async () => {
        const { rows } = await client.query<{ i: number; t: string | null; n: string | null; b: boolean | null; d: string | null }>(
          'SELECT i, t, n::text AS n, b, d::text AS d FROM pg_temp.staging_probe ORDER BY i',
        );
        return rows.map((r) => [r.i, r.t, r.n === null ? null : Number(r.n), r.b, r.d]);
      });
    } finally {
      await client.query('ROLLBACK');
    }
  };
  const rowsOf = (columns: StagedColumn[]) => columns[0].map((_, i) => columns.map((c) => c[i]));

  it('keeps every value: tabs, line breaks, backslashes, `\\N` as text, empty strings, multi-byte and astral characters, nulls', async () => {
    const random = mulberry32(42); // seeded: the same values on every run
    const pieces = ['a', 'Z', '9', ' ', '\t', '\n', '\r', '\\', '\\N', 'N', '"', "'", ',', '{', '}', 'é', '中', '😀', '\u2028', '\u007f'];
    const text = () => {
      if (random() < 0.05) return null;
      let s = '';
      const len = Math.floor(random() * 12);
      for (let k = 0; k < len; k++) s += pieces[Math.floor(random() * pieces.length)];
      return s;
    };
    const n = 3000;
    const columns: StagedColumn[] = [
      Array.from({ length: n }, (_, i) => i),
      Array.from({ length: n }, text),
      Array.from({ length: n }, () => (random() < 0.05 ? null : Math.floor((random() - 0.5) * 2 ** 53))),
      Array.from({ length: n }, () => (random() < 0.05 ? null : random() < 0.5)),
      Array.from({ length: n }, () => (random() < 0.05 ? null : `${Math.floor(random() * 1e15)}${Math.floor(random() * 1e15)}`.replace(/^0+(?=\d)/, ''))),
    ];
    expect(await roundTrip(columns)).toEqual(rowsOf(columns));
  });

  it('grows its buffer for any size: a value far larger than the first buffer, made of 3- and 4-byte characters', async () => {
    const huge = '中😀'.repeat(40_000); // 280,000 bytes of UTF-8
    const columns: StagedColumn[] = [
      [1, 2, 3],
      ['before', huge, 'after'],
      [1, null, 3],
      [true, false, null],
      ['1', null, '340282366920938463463374607431768211455'],
    ];
    expect(await roundTrip(columns)).toEqual(rowsOf(columns));
  });

  it('an empty batch is empty COPY text', () => {
    expect(stagedText([[], []]).length).toBe(0);
    expect(stagedText([]).length).toBe(0);
  });
});
