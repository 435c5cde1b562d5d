/**
 * Zod issues turned into what error messages show: dotted field paths and readable union
 * failures. Shared by request-body and response-body validation.
 * @module
 */
import { z } from "zod";

/**
 * A zod path as a program writes it, under an optional root: `["treatments", 0, "name"]` →
 * `treatments[0].name`, `["tags", "my key"]` → `tags["my key"]` (zod's own `toDotPath`; the one
 * path formatter of the project).
 */
export function dotPath(path: readonly PropertyKey[], root = ""): string {
  const rest = z.core.toDotPath([...path]);
  if (root === "" || rest === "") return root + rest;
  return rest.startsWith("[") ? `${root}${rest}` : `${root}.${rest}`;
}

/**
 * Zod issues as `{path, message}`, with unions made readable: a union (the timestamp's number |
 * digit string) reports only "Invalid input", so the issues of the branch whose type matched the
 * value are used instead, or, when no branch matched, the list of accepted types.
 */
export function flattenIssues(
  issues: readonly z.core.$ZodIssue[],
  base: readonly PropertyKey[] = [],
): { path: PropertyKey[]; message: string }[] {
  const out: { path: PropertyKey[]; message: string }[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // `.int()` reports a fraction as invalid_type with expected "int": that branch did match.
      const matched = (i: z.core.$ZodIssue) => i.code !== "invalid_type" || i.expected === "int";
      const branch = issue.errors.find((b) => b.length > 0 && b.every(matched));
      if (branch) {
        out.push(...flattenIssues(branch, path));
        continue;
      }
      const expected = issue.errors.flatMap((b) =>
        b.flatMap((i) => (i.code === "invalid_type" ? [String(i.expected)] : [])),
      );
      if (expected.length > 0) {
        out.push({ path, message: `Invalid input: expected ${[...new Set(expected)].join(" or ")}` });
        continue;
      }
    }
    out.push({ path, message: issue.message });
  }
  return out;
}
