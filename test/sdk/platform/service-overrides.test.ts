/**
 * platform.serviceOverrides against the emulator: exact data (the override itself, its spec read
 * from `yamlInternal`), the identifier the service makes of the references, `PUT` naming the
 * override in the body, the list as a POST, no `If-Match`.
 */
import { describe, expect, it } from "vitest";
import { serviceOverridesIdentifier } from "../../../sdk/platform/service-overrides";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments" };
const yamlInternal = (value: string) =>
  `variables:\n  - name: replicas\n    type: String\n    value: "${value}"\n`;
const request = (value: string) => ({
  orgIdentifier: "default",
  projectIdentifier: "payments",
  environmentRef: "prod",
  serviceRef: "checkout",
  type: "ENV_SERVICE_OVERRIDE" as const,
  yamlInternal: yamlInternal(value),
});

describe("platform.serviceOverrides", () => {
  it("needs its environment, then creates, lists by POST, replaces, reads and deletes", async () => {
    await expect(bed.platform.serviceOverrides.create(request("2"))).rejects.toMatchObject({
      status: 400,
      code: "RESOURCE_NOT_FOUND_EXCEPTION",
      message: expect.stringContaining("Environment with ref [prod] not found"),
    });
    await bed.platform.environments.create({
      identifier: "prod",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "Prod",
      type: "Production",
    });
    const created = await bed.platform.serviceOverrides.create(request("2"));
    expect(created).toEqual({
      identifier: "prod_checkout",
      accountId: bed.emu.accountId,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      environmentRef: "prod",
      serviceRef: "checkout",
      type: "ENV_SERVICE_OVERRIDE",
      spec: { variables: [{ name: "replicas", type: "String", value: "2" }] },
      yamlInternal: yamlInternal("2"),
    });
    const listed = await collect(bed.platform.serviceOverrides.list(at));
    expect(listed.map((o) => o.identifier)).toEqual(["prod_checkout"]);
    const updated = await bed.platform.serviceOverrides.update({
      ...request("3"),
      identifier: "prod_checkout",
    });
    expect(updated.spec).toEqual({ variables: [{ name: "replicas", type: "String", value: "3" }] });
    expect((await bed.platform.serviceOverrides.get("prod_checkout", at)).yamlInternal).toBe(
      yamlInternal("3"),
    );
    await expect(bed.platform.serviceOverrides.update(request("4"), { ifMatch: 0 })).rejects.toThrow(
      "the service override API takes no If-Match",
    );
    expect(await bed.platform.serviceOverrides.delete("prod_checkout", at)).toBe(true);
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "POST /ng/api/serviceOverrides",
      "POST /ng/api/environmentsV2",
      "POST /ng/api/serviceOverrides",
      "POST /ng/api/serviceOverrides/list",
      "PUT /ng/api/serviceOverrides",
      "GET /ng/api/serviceOverrides/prod_checkout",
      "DELETE /ng/api/serviceOverrides/prod_checkout",
    ]);
  });

  it("names an override without an identifier as the service does: its references joined by _, dots made _", () => {
    expect(
      [
        { type: "ENV_GLOBAL_OVERRIDE", environmentRef: "org.prod" },
        { type: "ENV_SERVICE_OVERRIDE", environmentRef: "prod", serviceRef: "account.checkout" },
        { type: "INFRA_GLOBAL_OVERRIDE", environmentRef: "prod", infraIdentifier: "k8s" },
        {
          type: "INFRA_SERVICE_OVERRIDE",
          environmentRef: "prod",
          serviceRef: "checkout",
          infraIdentifier: "k8s",
        },
        {
          type: "CLUSTER_SERVICE_OVERRIDE",
          environmentRef: "prod",
          serviceRef: "checkout",
          clusterIdentifier: "c1",
        },
      ].map((r) => serviceOverridesIdentifier(r as Parameters<typeof serviceOverridesIdentifier>[0])),
    ).toEqual(["org_prod", "prod_account_checkout", "prod_k8s", "prod_checkout_k8s", "prod_checkout_c1"]);
  });
});
