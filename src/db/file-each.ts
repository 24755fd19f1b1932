/** Writes in flight at once while an upgrade files what it read. */
const AT_ONCE = 8;

/**
 * Files each of `items` with `write` (one single-document write each, `AT_ONCE` at a time) and tells `progress`
 * the count after each: how an upgrade writes what it read, once the read is done.
 *
 * Why one write per command: FerretDB 1.24 on PostgreSQL never answers an `update` command of many statements
 * (a `bulkWrite` of 50 updates by `_id` on a collection of 1,000 documents), and every later command waits
 * behind it, so a node starting on a database that needed an upgrade hung. A single update takes about 2-3 ms
 * there.
 */
export async function fileEach<T>(items: readonly T[], write: (item: T) => Promise<unknown>, progress: (filed: number) => void = () => undefined): Promise<number> {
  let next = 0;
  let filed = 0;
  const writer = async () => {
    while (next < items.length) {
      await write(items[next++]);
      progress(++filed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, writer));
  return filed;
}
