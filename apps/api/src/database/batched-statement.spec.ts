import { batchable, batchParams } from './batched-statement';

describe('batchable', () => {
  it('reads every parameter from the batch, so the batched statement has only its one JSON parameter', () => {
    const s = batchable('s', 'SELECT $1::text, $3 FROM t WHERE a = $2 AND b < $3', ['text', 'int8', 'int8']);
    expect(s.batchText.match(/\$\d+/g)).toEqual(['$1']);
    expect(s.batchText).toContain('SELECT batch_params.p1::text, batch_params.p3 FROM t WHERE a = batch_params.p2 AND b < batch_params.p3');
    expect(s.batchText).toContain('json_to_recordset($1::json) AS batch_params(i int4, p1 text, p2 int8, p3 int8)');
    // $1 is not read as the start of $12.
    const many = batchable('m', `SELECT ${Array.from({ length: 12 }, (_, i) => `$${i + 1}`).join(', ')}`, Array(12).fill('int8'));
    expect(many.batchText).toContain(
      'SELECT batch_params.p1, batch_params.p2, batch_params.p3, batch_params.p4, batch_params.p5, batch_params.p6, batch_params.p7, batch_params.p8, batch_params.p9, batch_params.p10, batch_params.p11, batch_params.p12) AS one',
    );
  });

  it('run alone, each parameter has its declared type, whatever its first use would make it', () => {
    const s = batchable('s', 'SELECT $2 - $2 % 60 FROM t WHERE a = $1 AND b < $2', ['text', 'int8']);
    expect(s.text).toBe('SELECT $2::int8 - $2::int8 % 60 FROM t WHERE a = $1::text AND b < $2::int8');
  });

  it('refuses a parameter without a type, or a type without its parameter', () => {
    expect(() => batchable('s', 'SELECT $1, $3', ['text', 'text'])).toThrow('s: $3 has no type (2 given)');
    expect(() => batchable('s', 'SELECT $1', ['text', 'int8'])).toThrow('s: 2 types for 1 parameters');
  });

  it('passes each set as one JSON object, bigints as their decimal text (Postgres reads int8 from it exactly)', () => {
    expect(JSON.parse(batchParams([['a', 1, null, 2n ** 63n - 1n]]))).toEqual([{ i: 0, p1: 'a', p2: 1, p3: null, p4: '9223372036854775807' }]);
  });
});
