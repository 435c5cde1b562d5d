/**
 * The package schema of the native provider: the committed `provider-plugin/schema.json` is what
 * the zod schemas and their TSDoc generate (so a schema change without `npm run schema` fails
 * here), and the zod → Pulumi mapping rules on exact examples.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderSettings } from "../../provider/core/config";
import { generateSchema, SCHEMA_FILE, schemaText } from "../../provider/native/generate";
import type { NativeKind } from "../../provider/native/kinds";
import { ANY, enumName, packageSchema, singular } from "../../provider/native/schema";
import { MATCHER_TYPES } from "../../sdk/admin/schemas";

const committed = readFileSync(SCHEMA_FILE, "utf8");
const schema = JSON.parse(committed);

describe("the committed schema", () => {
  // Reading the TSDoc takes the compiler about ten seconds (more on a busy machine).
  it("is exactly what the zod schemas and their TSDoc generate (`npm run schema` to update it)", () => {
    expect(schemaText(generateSchema())).toBe(committed);
  }, 120_000);

  it("describes every input and output of every kind, and every argument and result of every lookup (from their TSDoc)", () => {
    const undescribed: string[] = [];
    const check = (props: Record<string, { description?: string }> | undefined, where: string) => {
      for (const [name, p] of Object.entries(props ?? {}))
        if (!p.description) undescribed.push(`${where}.${name}`);
    };
    for (const [token, r] of Object.entries(schema.resources as Record<string, Record<string, never>>)) {
      check(r.inputProperties, `${token} input`);
      check(r.properties, `${token} output`);
    }
    for (const [token, f] of Object.entries(
      schema.functions as Record<string, Record<string, { properties?: never }>>,
    )) {
      check(f.inputs?.properties, `${token} argument`);
      check(f.outputs?.properties, `${token} result`);
    }
    expect(undescribed).toEqual([]);
  });

  it("gives each resource its inputs, outputs, required members and replace flags", () => {
    const flag = schema.resources["flagstack:index:Flag"];
    expect(flag.description).toBe("A feature flag.");
    expect(flag.requiredInputs).toEqual(["workspace", "name"]);
    expect(flag.inputProperties.name).toEqual({
      type: "string",
      description: "The flag's name, unique in the workspace. Changing it replaces the flag.",
      replaceOnChanges: true,
    });
    expect(flag.inputProperties.trafficType).toEqual({
      type: "string",
      description: "The traffic type, by name (or id). Default `user`. Changing it replaces the flag.",
      default: "user",
      replaceOnChanges: true,
    });
    expect(flag.inputProperties.tags).toEqual({
      type: "array",
      items: { type: "string" },
      description: "Tags, a set: order and duplicates do not matter. Default: none.",
    });
    expect(Object.keys(flag.properties)).toEqual([
      "workspace",
      "trafficType",
      "name",
      "description",
      "tags",
      "rolloutStatus",
      "owners",
      "adopt",
      "flagId",
      "creationTime",
      "rolloutStatusId",
      "rolloutStatusTimestamp",
      "workspaceId",
      "workspaceName",
      "trafficTypeId",
    ]);
    expect(flag.required).toEqual(Object.keys(flag.properties));
    expect(flag.properties.creationTime).toEqual({
      type: "integer",
      description: "Creation time, epoch milliseconds.",
    });
  });

  it("marks the credentials secret in the configuration and in the provider's inputs", () => {
    expect(schema.config.variables.adminApiKey).toEqual({
      type: "string",
      description: "Admin API key.",
      secret: true,
    });
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(Object.keys(schema.config.variables)).toEqual([
      "adminApiUrl",
      "adminApiKey",
      "adminAuth",
      "platformApiUrl",
      "platformApiKey",
      "accountId",
      "requestsPerSecond",
      "maxRetries",
      "changeTitle",
      "changeComment",
    ]);
  });

  it("names nested object types, enums and discriminated unions", () => {
    expect(schema.types["flagstack:index:FlagDefinitionRuleConditionMatcherType"]).toEqual({
      type: "string",
      enum: MATCHER_TYPES.map((value) => ({ name: enumName(value), value })),
    });
    expect(schema.types["flagstack:index:FlagDefinitionRuleCondition"]).toEqual({
      type: "object",
      properties: {
        combiner: { type: "string", default: "AND" },
        matchers: {
          type: "array",
          items: { $ref: "#/types/flagstack:index:FlagDefinitionRuleConditionMatcher" },
        },
      },
      required: ["matchers"],
    });
    const auth = schema.types["flagstack:index:ConnectorDockerRegistry"].properties.auth;
    expect(auth).toEqual({
      oneOf: [
        { $ref: "#/types/flagstack:index:ConnectorDockerRegistryAuthAnonymous" },
        { $ref: "#/types/flagstack:index:ConnectorDockerRegistryAuthUsernamePassword" },
      ],
      discriminator: {
        propertyName: "type",
        mapping: {
          Anonymous: "#/types/flagstack:index:ConnectorDockerRegistryAuthAnonymous",
          UsernamePassword: "#/types/flagstack:index:ConnectorDockerRegistryAuthUsernamePassword",
        },
      },
      description: "Anonymous (the default) or user name and password secret.",
    });
  });
});

describe("the committed schema's functions", () => {
  it("has one per lookup, with its TSDoc, arguments and result", () => {
    expect(Object.keys(schema.functions)).toEqual([
      "flagstack:index:getWorkspace",
      "flagstack:index:getEnvironment",
      "flagstack:index:getRolloutStatus",
      "flagstack:index:getTrafficType",
      "flagstack:index:getGroup",
      "flagstack:index:getSegment",
      "flagstack:index:getFlagSet",
      "flagstack:index:getLargeSegment",
      "flagstack:index:getRuleBasedSegment",
      "flagstack:index:getUsers",
      "flagstack:index:getOrganization",
      "flagstack:index:getProject",
      "flagstack:index:getConnector",
      "flagstack:index:getPipeline",
    ]);
    expect(schema.functions["flagstack:index:getEnvironment"]).toEqual({
      description: "An environment of a workspace by name or id.",
      inputs: {
        properties: {
          workspace: { type: "string", description: "The workspace, by name or id." },
          name: { type: "string", description: "The object's name or id in that workspace." },
        },
        required: ["workspace", "name"],
      },
      outputs: {
        properties: {
          id: { type: "string", description: "The environment's id." },
          name: { type: "string", description: "The environment's name." },
          production: { type: "boolean", description: "Whether it is a production environment." },
        },
        required: ["id", "name", "production"],
      },
    });
    expect(schema.functions["flagstack:index:getUsers"].outputs).toEqual({
      properties: {
        users: {
          type: "array",
          items: { $ref: "#/types/flagstack:index:GetUsersUser" },
          description: "The users found.",
        },
      },
      required: ["users"],
    });
  });
});

describe("zod → Pulumi schema", () => {
  const Thing = z.strictObject({
    name: z.string().min(1),
    size: z.number().int().default(3),
    mode: z.enum(["fast", "slow"]).optional(),
    labels: z.record(z.string(), z.string()).default({}),
    items: z.array(z.strictObject({ key: z.string(), value: z.unknown() })).default([]),
    shape: z
      .discriminatedUnion("kind", [
        z.strictObject({ kind: z.literal("circle"), radius: z.number() }),
        z.strictObject({ kind: z.literal("square"), side: z.number() }),
      ])
      .optional(),
    text: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    sorted: z
      .array(z.string())
      .default([])
      .transform((v) => [...v].sort()),
    // No identifier: left out of the schema (the SDKs could not name it).
    "2fa": z.boolean().optional(),
  });
  const kind: NativeKind = {
    name: "Thing",
    token: "flagstack:index:Thing",
    dynamicToken: "pulumi-nodejs:dynamic/flagstack:Thing",
    impl: {} as NativeKind["impl"],
    inputs: Thing,
    outputs: Thing.extend({ thingId: z.string() }),
    replaceOnChange: ["name"],
    module: "thing",
    file: "thing",
    secretOutputs: [],
    secretInputs: [],
  };
  const out = packageSchema([kind], { version: "1.2.3", settings: ProviderSettings });

  it("maps each construct", () => {
    expect(out.resources["flagstack:index:Thing"]).toEqual({
      inputProperties: {
        name: { type: "string", replaceOnChanges: true },
        size: { type: "integer", default: 3 },
        mode: { $ref: "#/types/flagstack:index:ThingMode" },
        labels: { type: "object", additionalProperties: { type: "string" } },
        items: { type: "array", items: { $ref: "#/types/flagstack:index:ThingItem" } },
        shape: {
          oneOf: [
            { $ref: "#/types/flagstack:index:ThingShapeCircle" },
            { $ref: "#/types/flagstack:index:ThingShapeSquare" },
          ],
          discriminator: {
            propertyName: "kind",
            mapping: {
              circle: "#/types/flagstack:index:ThingShapeCircle",
              square: "#/types/flagstack:index:ThingShapeSquare",
            },
          },
        },
        text: { oneOf: [{ type: "string" }, { type: "object", additionalProperties: ANY }] },
        sorted: { type: "array", items: { type: "string" } },
      },
      requiredInputs: ["name"],
      properties: {
        name: { type: "string", replaceOnChanges: true },
        size: { type: "integer" },
        mode: { $ref: "#/types/flagstack:index:ThingMode" },
        labels: { type: "object", additionalProperties: { type: "string" } },
        items: { type: "array", items: { $ref: "#/types/flagstack:index:ThingItem" } },
        shape: {
          oneOf: [
            { $ref: "#/types/flagstack:index:ThingShapeCircle" },
            { $ref: "#/types/flagstack:index:ThingShapeSquare" },
          ],
          discriminator: {
            propertyName: "kind",
            mapping: {
              circle: "#/types/flagstack:index:ThingShapeCircle",
              square: "#/types/flagstack:index:ThingShapeSquare",
            },
          },
        },
        text: { oneOf: [{ type: "string" }, { type: "object", additionalProperties: ANY }] },
        // A transform's output: the input's type stands for it.
        sorted: { type: "array", items: { type: "string" } },
        thingId: { type: "string" },
      },
      required: ["name", "size", "labels", "items", "sorted", "thingId"],
    });
    expect(out.types).toEqual({
      "flagstack:index:ThingItem": {
        type: "object",
        properties: { key: { type: "string" }, value: ANY },
        // zod's JSON Schema lists an unknown member as required.
        required: ["key", "value"],
      },
      "flagstack:index:ThingMode": {
        type: "string",
        enum: [
          { name: "Fast", value: "fast" },
          { name: "Slow", value: "slow" },
        ],
      },
      "flagstack:index:ThingShapeCircle": {
        type: "object",
        properties: { kind: { type: "string" }, radius: { type: "number" } },
        required: ["kind", "radius"],
      },
      "flagstack:index:ThingShapeSquare": {
        type: "object",
        properties: { kind: { type: "string" }, side: { type: "number" } },
        required: ["kind", "side"],
      },
    });
  });

  it("names enum members for the SDK generators", () => {
    expect(
      ["IN_LIST_STRING", "Pre-Production", "deactivate", "DockerHub", "AllErrors"].map(enumName),
    ).toEqual(["InListString", "PreProduction", "Deactivate", "DockerHub", "AllErrors"]);
  });

  it("names array members in the singular", () => {
    expect(["treatments", "failureStrategies", "status", "keys", "access"].map(singular)).toEqual([
      "treatment",
      "failureStrategy",
      "status",
      "key",
      "access",
    ]);
  });
});
