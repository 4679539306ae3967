import { quoteUpstream, redactHeaders, redactSecrets, redactUrl, stripControl, urlSecrets } from './redact';

/** Credentials in endpoint URLs, headers and upstream bodies never reach a log line or an error message. */

describe('redactUrl', () => {
  it.each([
    ['query values (Helius-style ?api-key=)', 'https://mainnet.helius-rpc.com/?api-key=SEKRET-123', 'https://mainnet.helius-rpc.com/?api-key=***'],
    ['every query value, keys kept', 'https://rpc.example/path?api-key=K&cluster=devnet&flag', 'https://rpc.example/path?api-key=***&cluster=***&flag'],
    ['userinfo with a password: the user kept', 'postgres://hadron:PG-PASSWORD@db.internal:5432/hadron', 'postgres://hadron:***@db.internal:5432/hadron'],
    ['a password holding @', 'postgres://u:p@ss@db/hadron?sslmode=require', 'postgres://u:***@db/hadron?sslmode=***'],
    ['a lone userinfo is a token', 'https://SEKRET@rpc.example/', 'https://***@rpc.example/'],
    [
      'QuickNode: the token in the path',
      'https://x.solana-mainnet.quiknode.pro/0123456789abcdef0123456789abcdef/',
      'https://x.solana-mainnet.quiknode.pro/***/',
    ],
    ['Alchemy: /v2/<key>', 'https://solana-mainnet.g.alchemy.com/v2/AbCdEfGhIjKlMnOpQrStUvWx', 'https://solana-mainnet.g.alchemy.com/v2/***'],
    ['Triton: a UUID path', 'https://x.rpcpool.com/2b1f7d3e-5c4a-4e8b-9a6f-0d1c2b3a4e5f', 'https://x.rpcpool.com/***'],
    ['websocket URLs and fragments', 'wss://rpc.example/ws?token=T0K#frag', 'wss://rpc.example/ws?token=***#***'],
    ['nothing secret: unchanged', 'http://127.0.0.1:8899/mainnet-beta', 'http://127.0.0.1:8899/mainnet-beta'],
    ['host and port always kept', 'https://user:pw@rpc.example:8443', 'https://user:***@rpc.example:8443'],
  ])('%s', (_what, url, shown) => {
    expect(redactUrl(url)).toBe(shown);
    expect(redactUrl(new URL(url)).includes('***') || url === shown).toBe(true);
  });

  it('a value without a scheme still has its credentials masked', () => {
    expect(redactUrl('rpc.example/?api-key=SEKRET')).toBe('rpc.example/?api-key=***');
  });

  it('urlSecrets: the values masked, raw and percent-decoded, longest first (short values left alone)', () => {
    expect(urlSecrets('http://user:PASS%2DWORD@h/0123456789abcdefghijKLMN/?api-key=K3Y-VALUE&n=1')).toEqual([
      '0123456789abcdefghijKLMN',
      'PASS%2DWORD',
      'PASS-WORD',
      'K3Y-VALUE',
    ]);
    expect(urlSecrets('http://127.0.0.1:8899/devnet')).toEqual([]);
  });
});

describe('redactSecrets: URLs and credentials inside any text', () => {
  it('every URL in a message, whatever surrounds it', () => {
    expect(redactSecrets('HTTP 429 from https://rpc.example/?api-key=SEKRET-123')).toBe('HTTP 429 from https://rpc.example/?api-key=***');
    expect(redactSecrets('a "https://u:PW@a.example/x" and <wss://b.example/?k=V> then postgres://p:Q@c/db.')).toBe(
      'a "https://u:***@a.example/x" and <wss://b.example/?k=***> then postgres://p:***@c/db.',
    );
    // fetch's own refusal quotes the URL whole
    expect(redactSecrets('Request cannot be constructed from a URL that includes credentials: http://user:PASSWORD-XYZ@127.0.0.1:1/')).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://user:***@127.0.0.1:1/',
    );
  });

  it('punctuation after a URL stays outside it', () => {
    expect(redactSecrets('HTTP 500 from https://rpc.example/?api-key=K: bad gateway')).toBe('HTTP 500 from https://rpc.example/?api-key=***: bad gateway');
    expect(redactSecrets('(see https://u:p@h/?a=b), then.')).toBe('(see https://u:***@h/?a=***), then.');
  });

  it('secret headers, as text or JSON', () => {
    expect(redactSecrets('Authorization: Bearer abc.def.ghi')).toBe('Authorization: Bearer ***');
    expect(redactSecrets('{"authorization":"Basic dXNlcjpwYXNz","x-api-key":"K","ok":1}')).toBe('{"authorization":"Basic ***","x-api-key":"***","ok":1}');
    expect(redactSecrets('proxy-authorization=Digest abc')).toBe('proxy-authorization=Digest ***');
    expect(redactSecrets('Cookie: session=abc; other=def')).toBe('Cookie: ***');
    expect(redactSecrets('sent with bearer eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBe('sent with bearer ***');
  });

  it('key=value credentials outside URLs', () => {
    expect(redactSecrets('api_key=foo&x=1 password: hunter2 token=xyz apikey="abc"')).toBe('api_key=***&x=1 password: *** token=*** apikey="***"');
  });

  it('ordinary text is returned as it was (the same string)', () => {
    for (const s of ['token metadata changed: names updated', 'indexing cycle failed; retrying from the cursor', '6zvt/SOL', 'slot 12345: 3 swaps', ''])
      expect(redactSecrets(s)).toBe(s);
  });

  it('is idempotent', () => {
    const once = redactSecrets('https://u:p@h/?api-key=K Authorization: Bearer abcdefghij password=x');
    expect(redactSecrets(once)).toBe(once);
  });

  it('stays linear on huge input (no backtracking blow-up)', () => {
    const started = performance.now();
    redactSecrets(`${'a'.repeat(1_000_000)}://${'b'.repeat(1_000_000)}?token=${'c'.repeat(1_000_000)}`);
    redactSecrets(`${'x-api-key'.repeat(100_000)}`);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('redactHeaders', () => {
  it('masks the credential headers, case-insensitively, and keeps the rest', () => {
    expect(
      redactHeaders({ Authorization: 'Bearer t', 'X-API-Key': 'k', Cookie: 'a=b', 'Proxy-Authorization': 'Basic x', 'content-type': 'application/json' }),
    ).toEqual({
      Authorization: '***',
      'X-API-Key': '***',
      Cookie: '***',
      'Proxy-Authorization': '***',
      'content-type': 'application/json',
    });
    expect(redactHeaders(new Headers({ authorization: 'Bearer t', accept: '*/*' }))).toEqual({ authorization: '***', accept: '*/*' });
  });
});

describe('quoteUpstream: an upstream body fit for an error message', () => {
  it('control characters become spaces (no forged log lines, no terminal escapes)', () => {
    expect(stripControl('a\nb\r\nc\td\u0000e\u001b[31mf\u007fg\u0085h\u202ei')).toBe('a b  c d e [31mf g h i');
    const quoted = quoteUpstream('line one\n{"level":60,"msg":"forged"}\u0000\u001b]0;title\u0007');
    expect(quoted).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('cut to 120 characters, saying how many more there were', () => {
    const quoted = quoteUpstream('z'.repeat(10_000));
    expect(quoted).toBe(`${'z'.repeat(120)}… (+9880 chars)`);
    expect(quoteUpstream('short body')).toBe('short body');
  });

  it("the endpoint's own secrets echoed back are masked, and anything redactSecrets finds", () => {
    const secrets = urlSecrets('https://rpc.example/?api-key=SEKRET-123');
    expect(quoteUpstream('invalid API key SEKRET-123 for https://rpc.example/?api-key=SEKRET-123', { secrets })).toBe(
      'invalid API key *** for https://rpc.example/?api-key=***',
    );
  });

  it('a secret straddling the cut is masked before the cut', () => {
    const quoted = quoteUpstream(`${'x'.repeat(100)} postgres://u:LONG-PASSWORD@db/hadron`);
    expect(quoted).not.toContain('LONG-PASS');
    expect(quoted).not.toContain('LONG');
  });
});
