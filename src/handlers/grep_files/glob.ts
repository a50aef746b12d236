/**
 * Gitignore-style globs (the dialect of ripgrep's `--glob`), compiled to
 * regular expressions over `/`-separated relative paths.
 */

const REGEX_SPECIAL = new Set(Array.from("\\^$.|+()[]{}*?"));

function escapeChar(ch: string): string {
  return REGEX_SPECIAL.has(ch) ? `\\${ch}` : ch;
}

/** The regex source of a glob body: `*` and `?` stay within a segment, `**` crosses them. */
function globBody(glob: string): string {
  let out = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        i++;
        if (atSegmentStart && glob[i + 1] === "/") {
          out += "(?:.*/)?"; // `**/`: zero or more directories
          i++;
        } else {
          out += ".*";
        }
      } else {
        out += "[^/]*";
      }
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      let cls = glob.slice(i + 1, close);
      if (cls.startsWith("!")) cls = `^${cls.slice(1)}`;
      out += `[${cls.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else if (ch === "{") {
      braceDepth++;
      out += "(?:";
    } else if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
    } else if (ch === "," && braceDepth > 0) {
      out += "|";
    } else if (ch === "\\" && i + 1 < glob.length) {
      out += escapeChar(glob[++i] as string);
    } else {
      out += escapeChar(ch);
    }
  }
  if (braceDepth > 0) throw new Error(`unclosed '{' in glob ${JSON.stringify(glob)}`);
  return out;
}

export interface GlobRule {
  regex: RegExp;
  /** `!pattern`: re-includes (in ignore files) or excludes (in `--glob`). */
  negated: boolean;
  /** `pattern/`: matches directories only. */
  dirOnly: boolean;
}

/**
 * One glob line. A pattern with a `/` before its end is anchored to the base directory;
 * one without matches a name at any depth. A match also covers everything below it.
 */
export function compileGlob(line: string): GlobRule {
  let pattern = line;
  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  } else if (pattern.startsWith("\\!") || pattern.startsWith("\\#")) {
    pattern = pattern.slice(1);
  }
  const dirOnly = pattern.endsWith("/");
  if (dirOnly) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const prefix = anchored || pattern.startsWith("**/") ? "" : "(?:.*/)?";
  return { regex: new RegExp(`^${prefix}${globBody(pattern)}$`), negated, dirOnly };
}
