/**
 * `task` made safe to call in bursts: a call while it runs shares its promise and makes it run
 * once more after (so the last call's state is always seen), never twice at once.
 */
export function coalesce(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const loop = async (): Promise<void> => {
    do {
      again = false;
      await task();
    } while (again);
  };
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = loop().finally(() => (running = undefined));
    return running;
  };
}
