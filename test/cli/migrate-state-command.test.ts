import { describe, expect, it } from "vitest";
import {
  migrateDeployment,
  migrateUrn,
  NATIVE_TOKENS,
  type StateDeployment,
} from "../../cli/migrate-state-command";
import { KINDS } from "../../provider/kinds";

const P = "urn:pulumi:dev::app::";
const NODEJS = `${P}pulumi:providers:pulumi-nodejs::default::1a2b`;

describe("flagstack migrate-state: the state rewrite", () => {
  it("rewrites every flagstack dynamic type of a URN's qualified type, and only those", () => {
    expect(migrateUrn(`${P}pulumi-nodejs:dynamic/flagstack:Flag::checkout`)).toBe(
      `${P}flagstack:index:Flag::checkout`,
    );
    expect(
      migrateUrn(
        `${P}my:index:Component$pulumi-nodejs:dynamic/flagstack:Project$pulumi-nodejs:dynamic/flagstack:Pipeline::deploy`,
      ),
    ).toBe(`${P}my:index:Component$flagstack:index:Project$flagstack:index:Pipeline::deploy`);
    expect(migrateUrn(`${P}pulumi-nodejs:dynamic/other:Thing::x`)).toBe(
      `${P}pulumi-nodejs:dynamic/other:Thing::x`,
    );
    expect(migrateUrn(`${P}pulumi:pulumi:Stack::app-dev`)).toBe(`${P}pulumi:pulumi:Stack::app-dev`);
  });

  it("moves types, URNs and references, drops __provider, keeps the provider reference and everything else", () => {
    const stack = `${P}pulumi:pulumi:Stack::app-dev`;
    const flag = `${P}pulumi-nodejs:dynamic/flagstack:Flag::checkout`;
    const def = `${P}pulumi-nodejs:dynamic/flagstack:FlagDefinition::checkout-production`;
    const loader = 'exports.handler = () => require("flagstack/provider/flag").impl;\n';
    const deployment: StateDeployment = {
      manifest: { version: "v3.259.0" },
      resources: [
        { urn: stack, type: "pulumi:pulumi:Stack", custom: false },
        { urn: NODEJS, type: "pulumi:providers:pulumi-nodejs", custom: true, id: "1a2b", inputs: {} },
        {
          urn: flag,
          type: "pulumi-nodejs:dynamic/flagstack:Flag",
          custom: true,
          id: "f-1",
          parent: stack,
          provider: NODEJS,
          inputs: { __provider: loader, name: "new-checkout", workspace: "Default" },
          outputs: { __provider: loader, name: "new-checkout", flagId: "f-1" },
        },
        {
          urn: def,
          type: "pulumi-nodejs:dynamic/flagstack:FlagDefinition",
          custom: true,
          id: "d-1",
          parent: stack,
          provider: NODEJS,
          dependencies: [flag],
          propertyDependencies: { flag: [flag], workspace: [] },
          deletedWith: flag,
          inputs: { flag: "new-checkout" },
          outputs: { flag: "new-checkout" },
        },
      ],
    };
    const { deployment: out, report } = migrateDeployment(deployment);
    const nFlag = `${P}flagstack:index:Flag::checkout`;
    const nDef = `${P}flagstack:index:FlagDefinition::checkout-production`;
    expect(report.migrated).toEqual([
      { from: flag, to: nFlag },
      { from: def, to: nDef },
    ]);
    expect(out).toEqual({
      manifest: { version: "v3.259.0" },
      resources: [
        { urn: stack, type: "pulumi:pulumi:Stack", custom: false },
        { urn: NODEJS, type: "pulumi:providers:pulumi-nodejs", custom: true, id: "1a2b", inputs: {} },
        {
          urn: nFlag,
          type: "flagstack:index:Flag",
          custom: true,
          id: "f-1",
          parent: stack,
          provider: NODEJS,
          inputs: { name: "new-checkout", workspace: "Default" },
          outputs: { name: "new-checkout", flagId: "f-1" },
        },
        {
          urn: nDef,
          type: "flagstack:index:FlagDefinition",
          custom: true,
          id: "d-1",
          parent: stack,
          provider: NODEJS,
          dependencies: [nFlag],
          propertyDependencies: { flag: [nFlag], workspace: [] },
          deletedWith: nFlag,
          inputs: { flag: "new-checkout" },
          outputs: { flag: "new-checkout" },
        },
      ],
    });
    // The input is left as it was.
    expect(deployment.resources?.[2]?.inputs?.__provider).toBe(loader);
    // A second pass finds nothing to do.
    expect(migrateDeployment(out).report.migrated).toEqual([]);
  });

  it("refuses a state with pending operations, and a URN that is taken", () => {
    expect(() => migrateDeployment({ resources: [], pending_operations: [{ type: "creating" }] })).toThrow(
      "the stack has pending operations (an interrupted `pulumi up`): run `flagstack recover` first",
    );
    const urn = `${P}pulumi-nodejs:dynamic/flagstack:Group::team`;
    expect(() =>
      migrateDeployment({
        resources: [
          { urn, type: "pulumi-nodejs:dynamic/flagstack:Group" },
          { urn: `${P}flagstack:index:Group::team`, type: "flagstack:index:Group" },
        ],
      }),
    ).toThrow(`cannot migrate ${urn}: the state already has ${P}flagstack:index:Group::team`);
  });

  it("moves exactly the kinds' tokens (the names generated into provider/types.ts, so the command loads no resource module)", () => {
    expect([...NATIVE_TOKENS.keys()].sort()).toEqual(Object.keys(KINDS).sort());
    expect(NATIVE_TOKENS.get("pulumi-nodejs:dynamic/flagstack:RuleBasedSegmentDefinition")).toBe(
      "flagstack:index:RuleBasedSegmentDefinition",
    );
  });
});
