/**
 * The Terraform schema derived from the list of kinds: type and attribute names in snake_case,
 * required / optional+computed / computed from the zod inputs and outputs, sensitive from the
 * kind's secret marks, types and TSDoc descriptions from the package schema generated from the
 * same zod schemas, nested attributes for objects, and the protocol's `Schema` message.
 */
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../../provider/core/config";
import { KIND_LIST } from "../../../provider/kinds";
import { NATIVE_FUNCTIONS } from "../../../provider/native/functions";
import {
  attributeMessage,
  dataSourceSchema,
  type PackageSchemaPart,
  providerConfigSchema,
  readPackageSchema,
  resourceSchema,
  resourceTypeName,
  snakeCase,
  type TfAttribute,
  type TfType,
  typeJson,
} from "../../../provider/terraform/schema";

const schema = readPackageSchema();
const kind = (name: string) => {
  const k = KIND_LIST.find((x) => x.name === name);
  if (k === undefined) throw new Error(`no kind ${name}`);
  return k;
};
/** name: R(equired) / O(ptional) C(omputed) S(ensitive), and the type constraint. */
const summary = (a: TfAttribute) =>
  `${a.name}:${a.required ? "R" : ""}${a.optional ? "O" : ""}${a.computed ? "C" : ""}${a.sensitive ? "S" : ""} ${JSON.stringify(typeJson(a.type))}`;

describe("names", () => {
  it.each([
    ["trafficType", "traffic_type"],
    ["rolloutStatusTimestamp", "rollout_status_timestamp"],
    ["apiKeyId", "api_key_id"],
    ["FlagDefinition", "flag_definition"],
    ["yamlPipeline", "yaml_pipeline"],
    ["adminAPIKey", "admin_api_key"],
    ["name", "name"],
  ])("%s → %s", (camel, snake) => {
    expect(snakeCase(camel)).toBe(snake);
  });

  it("one resource type per kind of the list, flagstack_<snake name>, none twice", () => {
    const names = KIND_LIST.map((k) => resourceSchema(k, schema).typeName);
    expect(names).toHaveLength(KIND_LIST.length);
    expect(new Set(names).size).toBe(KIND_LIST.length);
    expect(names.slice(0, 7)).toEqual([
      "flagstack_environment",
      "flagstack_traffic_type",
      "flagstack_traffic_type_attribute",
      "flagstack_api_key",
      "flagstack_workspace",
      "flagstack_flag",
      "flagstack_flag_definition",
    ]);
    expect(resourceTypeName("RuleBasedSegmentDefinition")).toBe("flagstack_rule_based_segment_definition");
  });
});

describe("a kind's attributes", () => {
  it("FlagDefinition: what only the program holds (a change's note, its change request) is optional, not computed", () => {
    const r = resourceSchema(kind("FlagDefinition"), schema);
    const flags = (name: string) => {
      const a = r.attributes.find((x) => x.name === name) as TfAttribute;
      return [a.required, a.optional, a.computed];
    };
    expect(
      ["title", "comment", "adopt", "change_request", "wait_for_approval", "traffic_allocation", "rules"].map(
        (n) => [n, ...flags(n)],
      ),
    ).toEqual([
      ["title", false, true, false],
      ["comment", false, true, false],
      ["adopt", false, true, false],
      ["change_request", false, true, false],
      ["wait_for_approval", false, true, false],
      ["traffic_allocation", false, true, true],
      ["rules", false, true, true],
    ]);
  });

  it("Flag: id, its inputs (required, or optional and computed), then its outputs (computed)", () => {
    const r = resourceSchema(kind("Flag"), schema);
    expect(r.version).toBe(0);
    expect(r.description).toBe("A feature flag.");
    expect(r.attributes.map(summary)).toEqual([
      'id:C "string"',
      'workspace:R "string"',
      'traffic_type:OC "string"',
      'name:R "string"',
      'description:OC "string"',
      'tags:OC ["list","string"]',
      'rollout_status:OC "string"',
      'owners:OC ["list",["object",{"type":"string","id":"string"}]]',
      // Only the program holds it (the kind's programInputs): optional, not computed.
      'adopt:O "bool"',
      'flag_id:C "string"',
      'creation_time:C "number"',
      'rollout_status_id:C "string"',
      'rollout_status_timestamp:C "number"',
      'workspace_id:C "string"',
      'workspace_name:C "string"',
      'traffic_type_id:C "string"',
    ]);
    const owners = r.attributes.find((a) => a.name === "owners") as TfAttribute;
    expect(owners.type).toEqual({
      kind: "list",
      element: {
        kind: "object",
        attributes: [
          {
            name: "type",
            key: "type",
            type: { kind: "string" },
            required: true,
            optional: false,
            computed: false,
            sensitive: false,
            // The package schema shares one type among objects of one shape (here a change
            // permission's approver): its descriptions are that type's.
            description: "`user` or `group`.",
          },
          {
            name: "id",
            key: "id",
            type: { kind: "string" },
            required: true,
            optional: false,
            computed: false,
            sensitive: false,
            description: "The user's or group's id.",
          },
        ],
      },
    });
    expect((r.attributes.find((a) => a.name === "name") as TfAttribute).description).toBe(
      "The flag's name, unique in the workspace. Changing it replaces the flag.",
    );
  });

  it("sensitive: an ApiKey's key (a secret output), a Secret's value and file (secret inputs) and file digest (a secret output)", () => {
    const sensitive = (name: string) =>
      resourceSchema(kind(name), schema)
        .attributes.filter((a) => a.sensitive)
        .map((a) => a.name);
    expect(sensitive("ApiKey")).toEqual(["key"]);
    expect(sensitive("Secret")).toEqual(["value", "file", "file_sha256"]);
    expect(sensitive("Flag")).toEqual([]);
  });

  it("FlagDefinition: a treatment's configurations (a JSON string or an object) is dynamic", () => {
    const r = resourceSchema(kind("FlagDefinition"), schema);
    const treatments = r.attributes.find((a) => a.name === "treatments") as TfAttribute;
    expect(summary(treatments)).toBe(
      'treatments:R ["list",["object",{"name":"string","description":"string","configurations":"dynamic","keys":["list","string"],"segments":["list","string"]}]]',
    );
  });

  it("a union of object types is one object with every variant's members, all optional", () => {
    const part: PackageSchemaPart = {
      config: { variables: {} },
      types: {
        "flagstack:index:A": {
          type: "object",
          properties: { kind: { type: "string" }, a: { type: "number" } },
          required: ["kind", "a"],
        },
        "flagstack:index:B": {
          type: "object",
          properties: { kind: { type: "string" }, b: { type: "boolean" } },
          required: ["kind"],
        },
        "flagstack:index:Self": {
          type: "object",
          properties: { next: { $ref: "#/types/flagstack:index:Self" } },
        },
      },
      resources: {
        [kind("Flag").nativeToken]: {
          properties: {},
          inputProperties: {
            workspace: {
              oneOf: [{ $ref: "#/types/flagstack:index:A" }, { $ref: "#/types/flagstack:index:B" }],
            },
            trafficType: { oneOf: [{ type: "string" }, { type: "number" }] },
            name: { $ref: "#/types/flagstack:index:Self" },
            description: { type: "object", additionalProperties: { type: "integer" } },
            tags: { $ref: "pulumi.json#/Any" },
          },
          requiredInputs: [],
        },
      },
    };
    const attrs = resourceSchema(kind("Flag"), part).attributes;
    const type = (name: string) => (attrs.find((a) => a.name === name) as TfAttribute).type;
    expect(typeJson(type("workspace"))).toEqual(["object", { kind: "string", a: "number", b: "bool" }]);
    expect(
      (type("workspace") as Extract<TfType, { kind: "object" }>).attributes.map((a) => [
        a.name,
        a.required,
        a.optional,
      ]),
    ).toEqual([
      ["kind", false, true],
      ["a", false, true],
      ["b", false, true],
    ]);
    expect(typeJson(type("traffic_type"))).toBe("dynamic");
    // A type that refers to itself stops at the reference: dynamic.
    expect(typeJson(type("name"))).toEqual(["object", { next: "dynamic" }]);
    expect(typeJson(type("description"))).toEqual(["map", "number"]);
    expect(typeJson(type("tags"))).toBe("dynamic");
  });

  it("every kind's schema is derived without error, each attribute named once", () => {
    for (const k of KIND_LIST) {
      const names = resourceSchema(k, schema).attributes.map((a) => a.name);
      expect(new Set(names).size, k.name).toBe(names.length);
      expect(names[0], k.name).toBe("id");
    }
  });
});

describe("the protocol's Schema message", () => {
  it("a primitive attribute carries its type constraint as JSON bytes", () => {
    const r = resourceSchema(kind("Flag"), schema);
    const msg = attributeMessage(r.attributes.find((a) => a.name === "tags") as TfAttribute);
    expect({ ...msg, type: String(msg.type) }).toEqual({
      name: "tags",
      description: "Tags, a set: order and duplicates do not matter. Default: none.",
      description_kind: 1,
      required: false,
      optional: true,
      computed: true,
      sensitive: false,
      type: '["list","string"]',
    });
  });

  it("a list of objects is a nested attribute of LIST nesting", () => {
    const r = resourceSchema(kind("Flag"), schema);
    const msg = attributeMessage(r.attributes.find((a) => a.name === "owners") as TfAttribute) as {
      nested_type: { nesting: number; attributes: { name: string; type: Buffer; required: boolean }[] };
      type?: unknown;
    };
    expect(msg.type).toBeUndefined();
    expect(msg.nested_type.nesting).toBe(2);
    expect(msg.nested_type.attributes.map((a) => [a.name, String(a.type), a.required])).toEqual([
      ["type", '"string"', true],
      ["id", '"string"', true],
    ]);
  });
});

describe("the provider's configuration", () => {
  it("each setting in snake_case, optional, the keys sensitive, numbers as numbers", () => {
    const attrs = providerConfigSchema(schema, Object.keys(SETTINGS));
    expect(attrs.map(summary)).toEqual([
      'admin_api_url:O "string"',
      'admin_api_key:OS "string"',
      'admin_auth:O "string"',
      'platform_api_url:O "string"',
      'platform_api_key:OS "string"',
      'account_id:O "string"',
      'requests_per_second:O "number"',
      'max_retries:O "number"',
      'change_title:O "string"',
      'change_comment:O "string"',
    ]);
    expect(attrs[0]?.description).toBe("Base URL of the feature-flag admin API.");
  });
});

describe("data sources: one per lookup", () => {
  it("flagstack_<snake name without get>, every lookup of the native provider", () => {
    expect(NATIVE_FUNCTIONS.map((f) => dataSourceSchema(f, schema).typeName)).toEqual([
      "flagstack_workspace",
      "flagstack_environment",
      "flagstack_rollout_status",
      "flagstack_traffic_type",
      "flagstack_group",
      "flagstack_segment",
      "flagstack_flag_set",
      "flagstack_large_segment",
      "flagstack_rule_based_segment",
      "flagstack_users",
      "flagstack_organization",
      "flagstack_project",
      "flagstack_connector",
      "flagstack_pipeline",
    ]);
  });

  it("getWorkspace: its argument required, its result computed", () => {
    const d = dataSourceSchema({ name: "getWorkspace", token: "flagstack:index:getWorkspace" }, schema);
    expect(d.description).toBe("A workspace (project) by name or id.");
    expect(d.attributes.map(summary)).toEqual([
      'name:R "string"',
      'id:C "string"',
      'type:C "string"',
      'requires_title_and_comments:C "bool"',
    ]);
  });
});
