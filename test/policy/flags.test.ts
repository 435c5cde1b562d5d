import { describe, expect, it } from "vitest";
import { flagNaming, flagRequiredTags, hasTag } from "../../policy/flags";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE } from "../../provider/types";
import { runResourcePolicy } from "./util";

const flag = {
  workspace: "Default",
  trafficType: "user",
  name: "new-checkout",
  description: "",
  tags: ["owner:payments"],
};

describe("flag-naming", () => {
  it.each(["new-checkout", "checkout", "checkout-v2"])("passes %s", async (name) => {
    expect(await runResourcePolicy(flagNaming, FLAG_TYPE, { ...flag, name })).toEqual([]);
  });

  it.each(["New_Checkout", "checkout--v2", "2fa"])("reports %s", async (name) => {
    expect(await runResourcePolicy(flagNaming, FLAG_TYPE, { ...flag, name })).toEqual([
      `flag name "${name}" does not match the pattern ^[a-z][a-z0-9]*(-[a-z0-9]+)*$`,
    ]);
  });

  it("uses the configured pattern", async () => {
    const config = { pattern: "^team_[a-z_]+$" };
    expect(
      await runResourcePolicy(flagNaming, FLAG_TYPE, { ...flag, name: "team_checkout" }, config),
    ).toEqual([]);
    expect(await runResourcePolicy(flagNaming, FLAG_TYPE, flag, config)).toEqual([
      'flag name "new-checkout" does not match the pattern ^team_[a-z_]+$',
    ]);
  });

  it("ignores other resources and refuses an invalid pattern", async () => {
    expect(await runResourcePolicy(flagNaming, FLAG_DEFINITION_TYPE, { name: "Bad_Name" })).toEqual([]);
    await expect(runResourcePolicy(flagNaming, FLAG_TYPE, flag, { pattern: "([" })).rejects.toThrow(
      "invalid config of policy flag-naming: pattern: pattern must be a valid regular expression",
    );
  });
});

describe("flag-required-tags", () => {
  it("passes a flag with an owner tag (the default requirement)", async () => {
    expect(await runResourcePolicy(flagRequiredTags, FLAG_TYPE, flag)).toEqual([]);
  });

  it("reports a flag without tags", async () => {
    expect(await runResourcePolicy(flagRequiredTags, FLAG_TYPE, { ...flag, tags: [] })).toEqual([
      'flag "new-checkout" lacks the required tags "owner:*" (it has no tags)',
    ]);
  });

  it("reports each missing configured tag, reading [{name}] tags too", async () => {
    const config = { requiredTags: ["owner:*", "tier:*", "reviewed"] };
    expect(
      await runResourcePolicy(
        flagRequiredTags,
        FLAG_TYPE,
        { ...flag, tags: [{ name: "owner:web" }, { name: "tier:" }] },
        config,
      ),
    ).toEqual([
      'flag "new-checkout" lacks the required tags "tier:*", "reviewed" (it has "owner:web", "tier:")',
    ]);
    expect(
      await runResourcePolicy(
        flagRequiredTags,
        FLAG_TYPE,
        { ...flag, tags: ["owner:web", "tier:1", "reviewed"] },
        config,
      ),
    ).toEqual([]);
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
