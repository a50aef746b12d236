import type { Logger } from "pino";

/** Pages of one list request followed before giving up (a server that never ends a listing). */
const MAX_LIST_PAGES = 1_000;

/** One page of an MCP listing: its entries and the cursor of the next page, if any. */
export interface ListPage<T> {
  items: T[];
  nextCursor?: string | undefined;
}

/**
 * Follows `nextCursor` until the listing ends. A cursor seen before or a listing past
 * `MAX_LIST_PAGES` pages stops it, keeping what was collected (logged).
 */
export async function collectPages<T>(
  what: string,
  fetchPage: (cursor: string | undefined) => Promise<ListPage<T>>,
  logger: Logger,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_LIST_PAGES) {
      logger.warn({ what, pages: page }, "MCP listing exceeded the page cap; keeping the pages read");
      return items;
    }
    const result = await fetchPage(cursor);
    items.push(...result.items);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") return items;
    if (seen.has(next)) {
      logger.warn({ what, cursor: next }, "MCP listing returned a duplicate cursor; stopping");
      return items;
    }
    seen.add(next);
    cursor = next;
  }
}
