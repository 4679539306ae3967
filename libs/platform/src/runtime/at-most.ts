/**
 * Waits for `p`, but no longer than `ms`: resolves when either comes first, whatever `p`'s outcome
 * (a bounded wait during shutdown or clean-up, where a late or failed step must not hold things up).
 */
export async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.then(ignore, ignore), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

const ignore = () => undefined;
