import { texts, type JsonSchema } from "../protocol/index.js";
import { isRecord } from "../util/index.js";

/** `Read-File`, `read file`, `READ_FILE` and `readFile` all fold to `readfile`. */
const fold = (name: string): string => name.toLowerCase().replace(/[-_ ]/g, "");

/**
 * The one offered tool an unknown name equals after case folding and `-`/`_`/space
 * normalization (DESIGN section 18), or undefined when none or several do. Only suggested,
 * never run: the model may have meant something else, and the tool may change things.
 */
export function suggestTool(name: string, offered: readonly string[]): string | undefined {
  const folded = fold(name);
  const matches = offered.filter((tool) => tool !== name && fold(tool) === folded);
  return matches.length === 1 ? matches[0] : undefined;
}

/** One insertion, deletion, substitution or swap of neighbours turns `a` into `b`. */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.slice(i + 1) === short.slice(i);
}

const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The validator's problems, each unknown top-level property one edit away from exactly one
 * allowed property the arguments lack named in them: `/pahth is not an allowed property (did
 * you mean path?)`. The arguments are never changed: only the model may rename a property.
 */
export function suggestProperties(problems: readonly string[], args: unknown, schema: JsonSchema): string[] {
  const properties = schema["properties"];
  if (!isRecord(args) || !isRecord(properties)) return [...problems];
  const allowed = Object.keys(properties).filter((p) => !Object.hasOwn(args, p));
  const out = [...problems];
  for (const key of Object.keys(args)) {
    if (Object.hasOwn(properties, key)) continue;
    const near = allowed.filter((p) => oneEditApart(key, p));
    if (near.length !== 1) continue;
    const path = `/${escapePointer(key)}`;
    const at = out.indexOf(`${path} is not an allowed property`);
    if (at === -1) out.push(texts.unknownProperty(path, near[0] as string));
    else out[at] = texts.didYouMeanProperty(out[at] as string, near[0] as string);
  }
  return out;
}
