/**
 * Policies on flags (project level): naming convention and required tags.
 * @module
 */
import { z } from "zod";
import { propsOf, resourcePolicy } from "./common";
import { readFlag, TYPES } from "./resources";

const regex = (what: string) =>
  z.string().refine(
    (p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    },
    { message: `${what} must be a valid regular expression` },
  );

export const FlagNamingConfig = z.object({
  pattern: regex("pattern")
    .default("^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
    .describe("Regular expression every flag name must match (default: kebab-case)."),
});

/** flag-naming: flag names follow the configured pattern (kebab-case by default). */
export const flagNaming = resourcePolicy(
  {
    name: "flag-naming",
    description: "Flag names match the configured pattern (kebab-case by default).",
    enforcementLevel: "advisory",
    severity: "low",
    config: FlagNamingConfig,
    select: propsOf(TYPES.flag),
  },
  async (props, { pattern }, report) => {
    const flag = await readFlag(props);
    if (flag.name === undefined || new RegExp(pattern).test(flag.name)) return;
    report(`flag name "${flag.name}" does not match the pattern ${pattern}`);
  },
);

export const FlagTagsConfig = z.object({
  requiredTags: z
    .array(z.string().min(1))
    .default(["owner:*"])
    .describe(
      'Tags every flag must carry; an entry ending in "*" is a prefix ("owner:*" needs a tag such as "owner:payments").',
    ),
});

/** True when one of the tags satisfies a required entry (exact, or a prefix when it ends in `*`). */
export function hasTag(tags: readonly string[], required: string): boolean {
  if (required.endsWith("*")) {
    const prefix = required.slice(0, -1);
    return tags.some((t) => t.startsWith(prefix) && t.length > prefix.length);
  }
  return tags.includes(required);
}

/** flag-required-tags: every flag carries the configured tags. */
export const flagRequiredTags = resourcePolicy(
  {
    name: "flag-required-tags",
    description: 'Every flag carries the configured tags (by default an owner tag such as "owner:payments").',
    enforcementLevel: "advisory",
    severity: "low",
    config: FlagTagsConfig,
    select: propsOf(TYPES.flag),
  },
  async (props, { requiredTags }, report) => {
    const { name, tags } = await readFlag(props);
    // Tags the provider refuses (an empty tag) are its check's to report.
    if (tags === undefined) return;
    const missing = requiredTags.filter((t) => !hasTag(tags, t));
    if (missing.length === 0) return;
    const has = tags.length === 0 ? "it has no tags" : `it has ${tags.map((t) => `"${t}"`).join(", ")}`;
    report(
      `flag "${name ?? "?"}" lacks the required tags ${missing.map((t) => `"${t}"`).join(", ")} (${has})`,
    );
  },
);
