/**
 * Session ids are random on both sides, so a corpus item names the call that started the
 * session (`<SESSION:call_70>`) and each side's runner puts in the id that call's output gave.
 */
export function withSessionIds<T>(round: T, outputs: ReadonlyMap<string, string>): T {
  if (round === undefined) return round;
  const text = JSON.stringify(round).replace(/\\*"<SESSION:(call_\w+)>\\*"/g, (_, id: string) => {
    const match = /session ID (\d+)/.exec(outputs.get(id) ?? "");
    return match ? match[1]! : "0";
  });
  return JSON.parse(text) as T;
}
