/**
 * Values between the wire (`DynamicValue`), Terraform's form and the kinds' provider form: every
 * attribute present on the wire, `dynamic` values wrapped with their type (MessagePack: the type
 * as JSON bytes; JSON: `{type, value}`), snake_case ↔ camelCase by the type tree, map keys
 * untouched, nulls left out of the provider form, unknowns as the caller's marker.
 */
import { describe, expect, it } from "vitest";
import { decode, encode, UNKNOWN_VALUE } from "../../../provider/terraform/msgpack";
import type { TfAttribute, TfType } from "../../../provider/terraform/schema";
import {
  decodeDynamic,
  encodeDynamic,
  fromJsonText,
  fromProvider,
  impliedType,
  toProvider,
} from "../../../provider/terraform/values";

const attr = (key: string, name: string, type: TfType): TfAttribute => ({
  key,
  name,
  type,
  required: false,
  optional: true,
  computed: false,
  sensitive: false,
});
const TREATMENT: TfType = {
  kind: "object",
  attributes: [
    attr("name", "name", { kind: "string" }),
    attr("configurations", "configurations", { kind: "dynamic" }),
  ],
};
const TYPE: TfType = {
  kind: "object",
  attributes: [
    attr("id", "id", { kind: "string" }),
    attr("defaultTreatment", "default_treatment", { kind: "string" }),
    attr("trafficAllocation", "traffic_allocation", { kind: "number" }),
    attr("treatments", "treatments", { kind: "list", element: TREATMENT }),
    attr("labels", "labels", { kind: "map", element: { kind: "string" } }),
  ],
};

describe("the wire form", () => {
  it("writes every attribute, null when unset, and a dynamic value with its type", () => {
    const dv = encodeDynamic(
      { default_treatment: "off", treatments: [{ name: "on", configurations: { color: "red" } }] },
      TYPE,
    );
    expect(decode(dv.msgpack)).toEqual({
      id: null,
      default_treatment: "off",
      traffic_allocation: null,
      treatments: [
        {
          name: "on",
          configurations: [Uint8Array.from(Buffer.from('["object",{"color":"string"}]')), { color: "red" }],
        },
      ],
      labels: null,
    });
  });

  it("reads MessagePack back to the Terraform form, dynamic values unwrapped", () => {
    const value = {
      id: "f1",
      default_treatment: "off",
      traffic_allocation: 80,
      treatments: [
        { name: "on", configurations: "{}" },
        { name: "off", configurations: null },
      ],
      labels: { "Team Name": "payments" },
    };
    expect(decodeDynamic(encodeDynamic(value, TYPE), TYPE)).toEqual(value);
  });

  it("reads JSON (a DynamicValue's json, a stored state), dynamic values as {type, value}", () => {
    const text = JSON.stringify({
      id: "f1",
      treatments: [{ name: "on", configurations: { type: "string", value: "{}" } }],
    });
    expect(fromJsonText(text, TYPE)).toEqual({
      id: "f1",
      default_treatment: null,
      traffic_allocation: null,
      treatments: [{ name: "on", configurations: "{}" }],
      labels: null,
    });
    expect(decodeDynamic({ json: Buffer.from(text) }, TYPE)).toEqual(fromJsonText(text, TYPE));
  });

  it("an empty DynamicValue is null; an unknown stays unknown", () => {
    expect(decodeDynamic({}, TYPE)).toBeNull();
    expect(decodeDynamic({ msgpack: encode(UNKNOWN_VALUE) }, TYPE)).toBe(UNKNOWN_VALUE);
    expect(decodeDynamic(encodeDynamic(null, TYPE), TYPE)).toBeNull();
  });

  it("implies a dynamic value's type from the value", () => {
    expect(impliedType({ a: [1, "x"], b: true })).toEqual([
      "object",
      { a: ["tuple", ["number", "string"]], b: "bool" },
    ]);
  });
});

describe("the provider form", () => {
  it("camelCase members, nulls left out, map keys as they are, unknowns as the marker", () => {
    expect(
      toProvider(
        {
          id: null,
          default_treatment: "off",
          traffic_allocation: UNKNOWN_VALUE,
          treatments: [{ name: "on", configurations: null }],
          labels: { "Team Name": "payments", snake_key: "x" },
        },
        TYPE,
        "?",
      ),
    ).toEqual({
      defaultTreatment: "off",
      trafficAllocation: "?",
      treatments: [{ name: "on" }],
      labels: { "Team Name": "payments", snake_key: "x" },
    });
  });

  it("and back: snake_case members, each attribute present, a number given as text as a number", () => {
    expect(
      fromProvider(
        {
          defaultTreatment: "off",
          trafficAllocation: "80",
          treatments: [{ name: "on", configurations: { a: 1 } }],
          extra: 1,
        },
        TYPE,
      ),
    ).toEqual({
      id: null,
      default_treatment: "off",
      traffic_allocation: 80,
      treatments: [{ name: "on", configurations: { a: 1 } }],
      labels: null,
    });
  });
});

describe("map keys are user data", () => {
  it("a __proto__ key stays an own member both ways, beside ordinary keys", () => {
    const type: TfType = { kind: "map", element: { kind: "string" } };
    const tf = JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string>;
    const provider = toProvider(tf, type, undefined) as Record<string, string>;
    expect([Object.keys(provider), Object.getPrototypeOf(provider) === Object.prototype]).toEqual([
      ["__proto__", "a"],
      true,
    ]);
    const back = fromProvider(provider, type) as Record<string, string>;
    expect([Object.keys(back), back.a, Object.getOwnPropertyDescriptor(back, "__proto__")?.value]).toEqual([
      ["__proto__", "a"],
      "b",
      "x",
    ]);
  });
});
