import { describe, expect, it } from "vitest";
import { flagNaming, flagRequiredTags, hasTag } from "../../policy/flags";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../../provider/types";
import { checkedProps, runResourcePolicy } from "./util";

/** A flag as a program declares it (provider/flags/flag.ts). */
const flag = {
  workspace: "Default",
  name: "new-checkout",
  tags: ["owner:payments"],
};

/** Runs a policy on a flag declared with `inputs`, as the engine hands it over. */
const runOnFlag = async (policy: typeof flagNaming, inputs: Record<string, unknown>, config: object = {}) =>
  runResourcePolicy(policy, FLAG_TYPE, await checkedProps(FLAG_TYPE, inputs), config);

describe("flag-naming", () => {
  it.each(["new-checkout", "checkout", "checkout-v2"])("passes %s", async (name) => {
    expect(await runOnFlag(flagNaming, { ...flag, name })).toEqual([]);
  });

  it.each(["New_Checkout", "checkout--v2", "2fa"])("reports %s", async (name) => {
    expect(await runOnFlag(flagNaming, { ...flag, name })).toEqual([
      `flag name "${name}" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$`,
    ]);
  });

  it("uses the configured pattern", async () => {
    const config = { pattern: "^team_[a-z_]+$" };
    expect(await runOnFlag(flagNaming, { ...flag, name: "team_checkout" }, config)).toEqual([]);
    expect(await runOnFlag(flagNaming, flag, config)).toEqual([
      'flag name "new-checkout" does not match the pattern ^team_[a-z_]+$',
    ]);
  });

  it("ignores other resources and refuses an invalid pattern", async () => {
    const definition = await checkedProps(FLAG_DEFINITION_TYPE, { flag: "Bad_Name" });
    expect(await runResourcePolicy(flagNaming, FLAG_DEFINITION_TYPE, definition)).toEqual([]);
    await expect(runOnFlag(flagNaming, flag, { pattern: "([" })).rejects.toThrow(
      "invalid config of policy flag-naming: pattern: pattern must be a valid regular expression",
    );
  });
});

describe("flag-required-tags", () => {
  it("passes a flag with an owner tag (the default requirement)", async () => {
    expect(await runOnFlag(flagRequiredTags, flag)).toEqual([]);
  });

  it("reports a flag declared without tags", async () => {
    const { tags: _, ...untagged } = flag;
    expect(await runOnFlag(flagRequiredTags, untagged)).toEqual([
      'flag "new-checkout" lacks the required tags "owner:*" (it has no tags)',
    ]);
  });

  it("reports each missing configured tag, naming the tags as the provider keeps them (a sorted set)", async () => {
    const config = { requiredTags: ["owner:*", "tier:*", "reviewed"] };
    expect(
      await runOnFlag(flagRequiredTags, { ...flag, tags: ["tier:", "owner:web", "tier:"] }, config),
    ).toEqual([
      'flag "new-checkout" lacks the required tags "tier:*", "reviewed" (it has "owner:web", "tier:")',
    ]);
    expect(
      await runOnFlag(flagRequiredTags, { ...flag, tags: ["owner:web", "tier:1", "reviewed"] }, config),
    ).toEqual([]);
  });

  it("leaves tags the provider refuses to its check", async () => {
    expect(await runOnFlag(flagRequiredTags, { ...flag, tags: [""] })).toEqual([]);
  });

  it("reads the provider's default (no tags) for a flag it refuses for another input", async () => {
    expect(await runOnFlag(flagRequiredTags, { workspace: "Default", name: "2fa" })).toEqual([
      'flag "2fa" lacks the required tags "owner:*" (it has no tags)',
    ]);
  });

  it.each<[string[], string, boolean]>([
    [["owner:x"], "owner:*", true],
    [["owner:"], "owner:*", false],
    [["owners"], "owner", false],
    [["owner"], "owner", true],
  ])("hasTag(%j, %s) is %s", (tags, required, expected) => {
    expect(hasTag(tags, required)).toBe(expected);
  });
});

describe("both token families", () => {
  it("checks a flag of the native provider (flagstack:index:Flag, from a program in any language) as a dynamic one", async () => {
    const props = await checkedProps(FLAG_TYPE, { ...flag, name: "New_Checkout", tags: [] });
    expect(await runResourcePolicy(flagNaming, "flagstack:index:Flag", props)).toEqual([
      'flag name "New_Checkout" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$',
    ]);
    expect(await runResourcePolicy(flagRequiredTags, "flagstack:index:Flag", props)).toEqual([
      'flag "New_Checkout" lacks the required tags "owner:*" (it has no tags)',
    ]);
  });
});
