/**
 * `check` of every flag-side resource refuses bad input field by field, without a single request:
 * each row is one invalid input and the failure it must produce (property as a dot path, a
 * phrase of the reason). Run both on the implementation and through the real gRPC host with the
 * serialized provider, with the emulator's request log as the witness that nothing was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { impl as flagImpl, flagProviderText } from "../../provider/flags/flag";
import { impl as flagDefinitionImpl, flagDefinitionProviderText } from "../../provider/flags/flag-definition";
import { impl as groupImpl, groupProviderText } from "../../provider/flags/group";
import { impl as userInviteImpl, userInviteProviderText } from "../../provider/flags/user-invite";
import { type ProviderHost, startProviderHost } from "./harness";

type Row = [
  resource: "Flag" | "FlagDefinition" | "Group" | "UserInvite",
  label: string,
  inputs: Record<string, unknown>,
  property: string,
  reason: string,
];

const flag = { workspace: "Default", name: "checkout" };
const definition = {
  workspace: "Default",
  flag: "checkout",
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: 50 },
    { treatment: "off", size: 50 },
  ],
};
const rule = (buckets: unknown, matchers: unknown = [{ type: "IN_SEGMENT", string: "beta" }]) => ({
  buckets,
  condition: { matchers },
});
const group = { name: "reviewers" };
const user = { email: "ana@example.com" };

const rows: Row[] = [
  ["Flag", "empty name", { ...flag, name: "" }, "name", "name must not be empty"],
  ["Flag", "name starting with a digit", { ...flag, name: "9lives" }, "name", "must start with a letter"],
  ["Flag", "name with a space", { ...flag, name: "new checkout" }, "name", "must start with a letter"],
  ["Flag", "reserved name", { ...flag, name: "datetime" }, "name", "reserved word"],
  ["Flag", "name too long", { ...flag, name: `a${"b".repeat(100)}` }, "name", "at most 100 characters"],
  ["Flag", "empty workspace", { ...flag, workspace: "" }, "workspace", "workspace must not be empty"],
  ["Flag", "missing workspace", { name: "checkout" }, "workspace", "expected string, received undefined"],
  [
    "Flag",
    "description too long",
    { ...flag, description: "x".repeat(1025) },
    "description",
    "at most 1024 characters",
  ],
  ["Flag", "empty tag", { ...flag, tags: ["ok", ""] }, "tags[1]", "a tag must not be empty"],
  ["Flag", "tags not a list", { ...flag, tags: "payments" }, "tags", "expected array"],
  [
    "Flag",
    "unknown rollout status",
    { ...flag, rolloutStatus: "Rampin" },
    "rolloutStatus",
    'rolloutStatus "Rampin" is not a rollout status; valid: "Pre-Production", "Ramping"',
  ],
  ["Flag", "rollout status not a string", { ...flag, rolloutStatus: 3 }, "rolloutStatus", "expected string"],
  [
    "Flag",
    "empty traffic type",
    { ...flag, trafficType: "" },
    "trafficType",
    "trafficType must not be empty",
  ],
  ["Flag", "unknown property", { ...flag, colour: "red" }, "colour", 'unknown property "colour"'],
  ["Flag", "adopt not a boolean", { ...flag, adopt: "yes" }, "adopt", "expected boolean"],
  [
    "FlagDefinition",
    "default rule sums to 90",
    {
      ...definition,
      defaultRule: [
        { treatment: "on", size: 40 },
        { treatment: "off", size: 50 },
      ],
    },
    "defaultRule",
    "bucket sizes must sum to 100, got 90",
  ],
  [
    "FlagDefinition",
    "rule sums to 110",
    {
      ...definition,
      rules: [
        rule([
          { treatment: "on", size: 60 },
          { treatment: "off", size: 50 },
        ]),
      ],
    },
    "rules[0].buckets",
    "bucket sizes must sum to 100, got 110",
  ],
  [
    "FlagDefinition",
    "bucket of an unknown treatment",
    { ...definition, defaultRule: [{ treatment: "maybe", size: 100 }] },
    "defaultRule[0].treatment",
    'treatment "maybe" is not one of the treatments ("on", "off")',
  ],
  [
    "FlagDefinition",
    "rule bucket of an unknown treatment",
    { ...definition, rules: [rule([{ treatment: "maybe", size: 100 }])] },
    "rules[0].buckets[0].treatment",
    'treatment "maybe" is not one of the treatments',
  ],
  [
    "FlagDefinition",
    "unknown default treatment",
    { ...definition, defaultTreatment: "maybe" },
    "defaultTreatment",
    'defaultTreatment "maybe" is not one of the treatments',
  ],
  [
    "FlagDefinition",
    "unknown baseline treatment",
    { ...definition, baselineTreatment: "maybe" },
    "baselineTreatment",
    'baselineTreatment "maybe" is not one of the treatments',
  ],
  [
    "FlagDefinition",
    "traffic allocation over 100",
    { ...definition, trafficAllocation: 101 },
    "trafficAllocation",
    "trafficAllocation must be 0..100",
  ],
  [
    "FlagDefinition",
    "negative traffic allocation",
    { ...definition, trafficAllocation: -1 },
    "trafficAllocation",
    "trafficAllocation must be 0..100",
  ],
  [
    "FlagDefinition",
    "fractional traffic allocation",
    { ...definition, trafficAllocation: 50.5 },
    "trafficAllocation",
    "trafficAllocation must be a whole number",
  ],
  [
    "FlagDefinition",
    "no treatments",
    { ...definition, treatments: [] },
    "treatments",
    "at least one treatment is required",
  ],
  [
    "FlagDefinition",
    "duplicate treatment",
    { ...definition, treatments: [{ name: "on" }, { name: "off" }, { name: "on" }] },
    "treatments[2].name",
    'treatment "on" is defined twice',
  ],
  [
    "FlagDefinition",
    "reserved treatment name",
    { ...definition, treatments: [{ name: "control" }, { name: "off" }] },
    "treatments[0].name",
    "treatment name is a reserved word",
  ],
  [
    "FlagDefinition",
    "empty treatment name",
    { ...definition, treatments: [{ name: "" }, { name: "off" }] },
    "treatments[0].name",
    "treatment name must not be empty",
  ],
  [
    "FlagDefinition",
    "configurations not JSON",
    { ...definition, treatments: [{ name: "on", configurations: "{not json" }, { name: "off" }] },
    "treatments[0].configurations",
    "configurations must be valid JSON",
  ],
  [
    "FlagDefinition",
    "configurations a number",
    { ...definition, treatments: [{ name: "on", configurations: 42 }, { name: "off" }] },
    "treatments[0].configurations",
    "configurations must be a JSON string or an object",
  ],
  [
    "FlagDefinition",
    "21 treatments",
    {
      ...definition,
      treatments: Array.from({ length: 21 }, (_, i) => ({
        name: i === 0 ? "on" : i === 1 ? "off" : `t${i}`,
      })),
    },
    "treatments",
    "at most 20 treatments are allowed, got 21",
  ],
  [
    "FlagDefinition",
    "bucket size 150",
    { ...definition, defaultRule: [{ treatment: "on", size: 150 }] },
    "defaultRule[0].size",
    "size must be 0..100",
  ],
  [
    "FlagDefinition",
    "fractional bucket size",
    { ...definition, defaultRule: [{ treatment: "on", size: 33.3 }] },
    "defaultRule[0].size",
    "size must be a whole number",
  ],
  [
    "FlagDefinition",
    "rule without matchers",
    { ...definition, rules: [rule([{ treatment: "on", size: 100 }], [])] },
    "rules[0].condition.matchers",
    "a condition needs at least one matcher",
  ],
  [
    "FlagDefinition",
    "SDK matcher name",
    { ...definition, rules: [rule([{ treatment: "on", size: 100 }], [{ type: "ALL_KEYS" }])] },
    "rules[0].condition.matchers[0].type",
    "Invalid option",
  ],
  [
    "FlagDefinition",
    "rule without buckets",
    { ...definition, rules: [rule([])] },
    "rules[0].buckets",
    "a rule needs at least one bucket",
  ],
  [
    "FlagDefinition",
    "empty default rule",
    { ...definition, defaultRule: [] },
    "defaultRule",
    "defaultRule needs at least one bucket",
  ],
  [
    "FlagDefinition",
    "key targeted twice",
    {
      ...definition,
      treatments: [
        { name: "on", keys: ["u1"] },
        { name: "off", keys: ["u1"] },
      ],
    },
    "treatments[1].keys[0]",
    'key "u1" is already a target of treatment "on"',
  ],
  [
    "FlagDefinition",
    "empty environment",
    { ...definition, environment: "" },
    "environment",
    "environment must not be empty",
  ],
  ["FlagDefinition", "empty flag", { ...definition, flag: "" }, "flag", "name must not be empty"],
  ["FlagDefinition", "killed not a boolean", { ...definition, killed: "true" }, "killed", "expected boolean"],
  ["FlagDefinition", "empty title", { ...definition, title: "" }, "title", "title must not be empty"],
  [
    "FlagDefinition",
    "unknown property",
    { ...definition, rollout: 50 },
    "rollout",
    'unknown property "rollout"',
  ],
  [
    "FlagDefinition",
    "unknown treatment property",
    { ...definition, treatments: [{ name: "on", config: "{}" }, { name: "off" }] },
    "treatments[0].config",
    'unknown property "config"',
  ],
  [
    "FlagDefinition",
    "segment matcher without a segment",
    { ...definition, rules: [rule([{ treatment: "on", size: 100 }], [{ type: "IN_SEGMENT" }])] },
    "rules[0].condition.matchers[0].string",
    "string is required for a IN_SEGMENT matcher",
  ],
  [
    "FlagDefinition",
    "set matcher without an attribute",
    {
      ...definition,
      rules: [rule([{ treatment: "on", size: 100 }], [{ type: "ANY_OF_SET", strings: ["a"] }])],
    },
    "rules[0].condition.matchers[0].attribute",
    "attribute is required for a ANY_OF_SET matcher",
  ],
  [
    "FlagDefinition",
    "bad regular expression",
    {
      ...definition,
      rules: [
        rule(
          [{ treatment: "on", size: 100 }],
          [{ type: "MATCHES_STRING", attribute: "email", string: "([a-z" }],
        ),
      ],
    },
    "rules[0].condition.matchers[0].string",
    "string is not a valid regular expression",
  ],
  [
    "FlagDefinition",
    "empty value list",
    {
      ...definition,
      rules: [
        rule([{ treatment: "on", size: 100 }], [{ type: "IN_LIST_STRING", attribute: "plan", strings: [] }]),
      ],
    },
    "rules[0].condition.matchers[0].strings",
    "strings must not be empty",
  ],
  ["Group", "empty name", { ...group, name: "" }, "name", "name must not be empty"],
  [
    "Group",
    "name too long",
    { ...group, name: "g".repeat(257) },
    "name",
    "name must be at most 256 characters",
  ],
  [
    "Group",
    "description too long",
    { ...group, description: "d".repeat(1025) },
    "description",
    "description must be at most 1024 characters",
  ],
  ["Group", "unknown property", { ...group, owner: "ana" }, "owner", 'unknown property "owner"'],
  [
    "UserInvite",
    "bad e-mail",
    { ...user, email: "ana-at-example" },
    "email",
    "email must be a valid e-mail address",
  ],
  ["UserInvite", "empty e-mail", { ...user, email: "" }, "email", "email must be a valid e-mail address"],
  ["UserInvite", "missing e-mail", {}, "email", "email must be a valid e-mail address"],
  ["UserInvite", "empty group", { ...user, groups: [""] }, "groups[0]", "a group must not be empty"],
  ["UserInvite", "groups not a list", { ...user, groups: "admins" }, "groups", "expected array"],
  [
    "UserInvite",
    "unknown onDelete",
    { ...user, onDelete: "delete" },
    "onDelete",
    'onDelete must be one of "deactivate", "retain", "fail"',
  ],
];

const impls = {
  Flag: flagImpl,
  FlagDefinition: flagDefinitionImpl,
  Group: groupImpl,
  UserInvite: userInviteImpl,
};
const providers = {
  Flag: flagProviderText,
  FlagDefinition: flagDefinitionProviderText,
  Group: groupProviderText,
  UserInvite: userInviteProviderText,
};

let emu: Emulator;
let host: ProviderHost;
const texts: Record<string, string> = {};

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  host = await startProviderHost();
  await host.configure({ "flagstack:adminApiUrl": emu.url, "flagstack:adminApiKey": emu.adminKey });
  for (const [name, provider] of Object.entries(providers)) texts[name] = provider;
});

afterAll(async () => {
  await host?.stop();
  await emu?.stop();
});

describe("check refuses invalid inputs with a failure naming the field and no request", () => {
  it("has at least 40 rows", () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
  });

  it.each(rows)("%s: %s (direct)", async (resource, _label, inputs, property, reason) => {
    emu.resetRequests();
    const result = await impls[resource].check({}, inputs);
    expect(result.failures).toContainEqual({ property, reason: expect.stringContaining(reason) });
    expect(emu.requests()).toEqual([]);
  });

  it.each(rows)("%s: %s (gRPC host)", async (resource, _label, inputs, property, reason) => {
    emu.resetRequests();
    const result = await host.check({}, { ...inputs, __provider: texts[resource] });
    expect(result.failures).toContainEqual({ property, reason: expect.stringContaining(reason) });
    expect(emu.requests()).toEqual([]);
  });

  it.each(Object.keys(impls) as (keyof typeof impls)[])(
    "%s: valid inputs pass with no request",
    async (resource) => {
      emu.resetRequests();
      const base = { Flag: flag, FlagDefinition: definition, Group: group, UserInvite: user }[resource];
      expect((await impls[resource].check({}, base)).failures).toBeUndefined();
      expect(emu.requests()).toEqual([]);
    },
  );
});
