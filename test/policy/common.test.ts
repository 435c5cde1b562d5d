import { describe, expect, it } from "vitest";
import { readConfig } from "../../policy/common";
import { TargetingConfig } from "../../policy/targeting";

const args = (config: object) => ({ getConfig: <T extends object>() => config as T });

describe("readConfig", () => {
  it("applies the defaults of the policy's schema", () => {
    expect(readConfig("targeting-assertions", TargetingConfig, args({}))).toEqual({
      expectations: [],
      sampleSize: 10_000,
      keyPrefix: "key-",
      segments: {},
    });
  });

  it.each<[string, object, string]>([
    [
      "an index",
      { expectations: [{ flag: "f", environment: "e", treatment: "on" }] },
      "expectations[0]: an expectation needs a key, or maxPercent and/or minPercent",
    ],
    [
      "a key that is no identifier, quoted",
      { segments: { "beta testers": "alice" } },
      'segments["beta testers"]: Invalid input: expected array, received string',
    ],
    [
      "the config itself",
      [] as unknown as object,
      "(config): Invalid input: expected object, received array",
    ],
  ])("names the field at fault with zod's path format: %s", (_, config, message) => {
    expect(() => readConfig("targeting-assertions", TargetingConfig, args(config))).toThrow(
      `invalid config of policy targeting-assertions: ${message}`,
    );
  });
});
