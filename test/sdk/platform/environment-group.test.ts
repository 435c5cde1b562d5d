/**
 * platform.environmentGroups against the emulator: exact data (the group under `envGroup`, its
 * environments read from the YAML), `PUT /{id}` with `If-Match`, the list as a POST, and the
 * delete's answer naming what it deleted.
 */
import { describe, expect, it } from "vitest";
import { environmentGroupRoutes } from "../../../sdk/platform/environment-group";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments" };
const yaml = (name: string, envs: string[]) =>
  [
    "environmentGroup:",
    `  name: ${name}`,
    "  identifier: prod_group",
    "  orgIdentifier: default",
    "  projectIdentifier: payments",
    `  envIdentifiers: [${envs.join(", ")}]`,
    "",
  ].join("\n");
const request = (name: string, envs: string[]) => ({
  identifier: "prod_group",
  orgIdentifier: "default",
  projectIdentifier: "payments",
  yaml: yaml(name, envs),
});

describe("platform.environmentGroups", () => {
  it("creates, lists by POST, updates with the version read, refuses a stale one, and deletes", async () => {
    const created = await bed.platform.environmentGroups.create(request("Prod", ["prod_eu"]));
    expect(created.envGroup).toEqual({
      accountId: bed.emu.accountId,
      identifier: "prod_group",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "Prod",
      description: "",
      tags: {},
      color: "#0063F7",
      envIdentifiers: ["prod_eu"],
      yaml: yaml("Prod", ["prod_eu"]),
      deleted: false,
    });
    expect(created.version).toBe(0);
    const listed = await collect(bed.platform.environmentGroups.list(at));
    expect(listed.map((g) => g.envGroup.identifier)).toEqual(["prod_group"]);
    const updated = await bed.platform.environmentGroups.update(request("Prod", ["prod_eu", "prod_us"]), {
      ifMatch: 0,
    });
    expect([updated.envGroup.envIdentifiers, updated.version]).toEqual([["prod_eu", "prod_us"], 1]);
    await expect(
      bed.platform.environmentGroups.update(request("Stale", []), { ifMatch: 0 }),
    ).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("couldn't be updated or doesn't exist."),
    });
    expect((await bed.platform.environmentGroups.get("prod_group", at)).envGroup.name).toBe("Prod");
    expect(await bed.platform.environmentGroups.delete("prod_group", at, { ifMatch: 1 })).toBe(true);
    await expect(bed.platform.environmentGroups.get("prod_group", at)).rejects.toThrow(
      "Environment Group with identifier [prod_group] in project [payments], org [default] not found",
    );
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "POST /ng/api/environmentGroup",
      "POST /ng/api/environmentGroup/list",
      "PUT /ng/api/environmentGroup/prod_group",
      "PUT /ng/api/environmentGroup/prod_group",
      "GET /ng/api/environmentGroup/prod_group",
      "DELETE /ng/api/environmentGroup/prod_group",
      "GET /ng/api/environmentGroup/prod_group",
    ]);
    expect(bed.ifMatches()).toEqual(["-", "-", "0", "0", "-", "1", "-"]);
  });

  it("answers a delete with what it deleted", async () => {
    await bed.platform.environmentGroups.create(request("Prod", []));
    const query = {
      accountIdentifier: bed.emu.accountId,
      orgIdentifier: "default",
      projectIdentifier: "payments",
    };
    const r = await bed.platform.core.request(
      environmentGroupRoutes.delete,
      { identifier: "prod_group" },
      { query },
    );
    expect(r).toMatchObject({
      status: "SUCCESS",
      data: {
        deleted: true,
        accountId: bed.emu.accountId,
        orgIdentifier: "default",
        projectIdentifier: "payments",
        identifier: "prod_group",
      },
    });
  });
});
