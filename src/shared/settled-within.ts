/**
 * Waits for `work` to settle (fulfilled or rejected alike), but no longer than `ms`: true when it settled in
 * time. For shutdown steps that must not hold a node's stop for ever.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms).unref()));
  try {
    return await Promise.race([work.then(() => true, () => true), outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}
