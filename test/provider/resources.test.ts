/**
 * The resource classes, wired through `pulumi.runtime.setMocks` (ref pulumi-notes §6.4): distinct
 * type tokens, `__provider` set to the resource module's provider text, every output seeded and
 * resolved, `pulumi.Input` accepted at every level of the typed args.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  Flag,
  type FlagArgs,
  FlagDefinition,
  type FlagDefinitionArgs,
  Group,
  UserInvite,
} from "../../provider";
import { providerText } from "../../provider/core/resource";
import { FLAG_DEFINITION_TYPE, FLAG_TYPE, GROUP_TYPE, USER_INVITE_TYPE } from "../../provider/types";

const registered: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push(args);
        const { __provider: _, ...inputs } = args.inputs as Record<string, unknown>;
        return {
          id: `${args.name}-id`,
          state: { ...inputs, flagId: "f-1", groupId: "g-1", userId: "u-1", status: "PENDING" },
        };
      },
      call: () => ({}),
    },
    "shop",
    "dev",
  );
});

const output = <T>(o: pulumi.Output<T>): Promise<T> => new Promise((resolve) => o.apply(resolve));

describe("resource classes", () => {
  it("register distinct type tokens with the serialized provider", async () => {
    const flag = new Flag("f", { workspace: "Default", name: "checkout" });
    const def = new FlagDefinition("d", {
      workspace: "Default",
      flag: flag.name,
      environment: "Production",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
    });
    const group = new Group("g", { name: "reviewers" });
    const user = new UserInvite("u", { email: "ana@example.com", groups: [group.name] });
    expect(await output(flag.flagId)).toBe("f-1");
    expect(await output(def.flag)).toBe("checkout");
    expect(await output(group.groupId)).toBe("g-1");
    expect(await output(user.status)).toBe("PENDING");
    expect(registered.map((r) => r.type).sort()).toEqual(
      [FLAG_TYPE, FLAG_DEFINITION_TYPE, GROUP_TYPE, USER_INVITE_TYPE].sort(),
    );
    const files: Record<string, string> = {
      [FLAG_TYPE]: "flag",
      [FLAG_DEFINITION_TYPE]: "flag-definition",
      [GROUP_TYPE]: "group",
      [USER_INVITE_TYPE]: "user-invite",
    };
    for (const r of registered) {
      expect((r.inputs as { __provider: string }).__provider).toBe(providerText(files[r.type]!));
    }
    expect(Flag.__pulumiType).toBe(FLAG_TYPE);
    expect(UserInvite.__pulumiType).toBe(USER_INVITE_TYPE);
  });

  it("accept pulumi.Input values at every level of the args", () => {
    expectTypeOf<pulumi.Output<string>>().toExtend<FlagArgs["name"]>();
    expectTypeOf<Promise<string[]>>().toExtend<FlagArgs["tags"]>();
    expectTypeOf<{ name: pulumi.Output<string>; keys: pulumi.Output<string>[] }[]>().toExtend<
      FlagDefinitionArgs["treatments"]
    >();
    expectTypeOf<{ treatment: string; size: pulumi.Output<number> }[]>().toExtend<
      NonNullable<FlagDefinitionArgs["defaultRule"]>
    >();
  });

  it("take the owning resource for an owner input: its name is passed, any other resource refused", async () => {
    const flag = new Flag("owned-flag", { workspace: "Default", name: "owned-checkout" });
    const def = new FlagDefinition("owned-def", {
      workspace: "Default",
      flag,
      environment: "Production",
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
    });
    expect(await output(def.flag)).toBe("owned-checkout");
    const inputs = registered.find((r) => r.name === "owned-def")?.inputs as Record<string, unknown>;
    expect(inputs.flag).toBe("owned-checkout");
    const group = new Group("not-a-flag", { name: "reviewers" });
    expect(
      () =>
        new FlagDefinition("wrong-owner", {
          workspace: "Default",
          flag: group,
          environment: "Production",
          treatments: [{ name: "on" }],
          defaultTreatment: "on",
        }),
    ).toThrow("wrong-owner: flag must be a Flag resource, its name, or a string; got a Group resource");
  });
});
