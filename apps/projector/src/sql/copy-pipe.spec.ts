import { CopyPipe } from './copy-pipe';

/** Everything the COPY side receives, as one buffer. */
async function drain(pipe: CopyPipe): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of pipe) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('CopyPipe', () => {
  it('hands the COPY exactly the UTF-8 of the lines written, in order, whatever their length and characters', async () => {
    const lines: string[] = [];
    // Text of 1 to 4 UTF-8 bytes per character, so that lines end at every offset near a chunk's end.
    for (let i = 0; i < 40_000; i++) lines.push(`mainnet-beta\tpool-${i % 37}\t${10n ** 30n + BigInt(i)}\t${['x', 'ž', '€', '🐎'][i % 4].repeat(i % 41)}\n`);
    lines.splice(7_000, 0, `${'é'.repeat(200_000)}\n`, `${'a'.repeat(600_000)}\n`, '\n'); // lines beyond a chunk, and an empty one
    const pipe = new CopyPipe();
    const received = drain(pipe);
    for (const line of lines) await pipe.write(line);
    pipe.end();
    const bytes = await received;
    expect(bytes.length).toBe(Buffer.byteLength(lines.join('')));
    expect(bytes.equals(Buffer.from(lines.join('')))).toBe(true);
  });

  it('asks the writer to wait while more than the queue holds is unsent, and lets it go on once the COPY has taken it', async () => {
    const pipe = new CopyPipe();
    const line = `${'x'.repeat(1023)}\n`;
    let written = 0;
    let wait: Promise<void> | undefined;
    while (wait === undefined && written < 100_000) {
      wait = pipe.write(line);
      written++;
    }
    expect(wait).toBeInstanceOf(Promise);
    expect(written * line.length).toBeGreaterThan(8 * 1024 * 1024); // the high-water mark
    let released = false;
    void wait!.then(() => (released = true));
    await new Promise((r) => setImmediate(r));
    expect(released).toBe(false);
    const received = drain(pipe);
    await wait;
    pipe.end();
    expect((await received).length).toBe(written * line.length);
  });

  it('fails both sides: the COPY gets the error, and a later write throws it', async () => {
    const pipe = new CopyPipe();
    pipe.write('a\n');
    const received = drain(pipe);
    const error = new Error('the reader failed');
    pipe.fail(error);
    await expect(received).rejects.toBe(error);
    expect(() => pipe.write('b\n')).toThrow(error);
  });
});
