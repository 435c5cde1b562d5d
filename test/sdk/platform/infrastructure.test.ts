/** platform.infrastructures against the emulator: the environment in every read, no `If-Match`. */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments", environment: "staging" };
const yaml = (namespace: string) =>
  stringify({
    infrastructureDefinition: {
      name: "Cluster",
      identifier: "cluster",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      environmentRef: "staging",
      deploymentType: "Kubernetes",
      type: "KubernetesDirect",
      spec: { connectorRef: "account.k8s", namespace, releaseName: "release-<+INFRA_KEY>" },
    },
  });
const body = (namespace: string) => ({
  identifier: "cluster",
  orgIdentifier: "default",
  projectIdentifier: "payments",
  name: "Cluster",
  environmentRef: "staging",
  type: "KubernetesDirect" as const,
  yaml: yaml(namespace),
});

describe("platform.infrastructures", () => {
  it("needs its environment, then creates, reads, updates, lists and deletes", async () => {
    await expect(bed.platform.infrastructures.create(body("apps"))).rejects.toMatchObject({
      status: 400,
      code: "RESOURCE_NOT_FOUND_EXCEPTION",
      message: expect.stringContaining("Environment with ref [staging] not found"),
    });
    await bed.platform.environments.create({
      identifier: "staging",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "Staging",
      type: "PreProduction",
    });
    const created = await bed.platform.infrastructures.create(body("apps"));
    expect(created.infrastructure).toEqual({
      accountId: bed.emu.accountId,
      identifier: "cluster",
      orgIdentifier: "default",
      projectIdentifier: "payments",
      name: "Cluster",
      description: "",
      tags: {},
      environmentRef: "staging",
      type: "KubernetesDirect",
      deploymentType: "Kubernetes",
      yaml: yaml("apps"),
    });
    expect(await bed.platform.infrastructures.get("cluster", at)).toEqual(created);
    const updated = await bed.platform.infrastructures.update(body("web"));
    expect(updated.infrastructure.yaml).toBe(yaml("web"));
    await expect(bed.platform.infrastructures.update(body("web"), { ifMatch: 1 })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "ifMatch", message: "the infrastructure API takes no If-Match" }],
    });
    expect(
      (await collect(bed.platform.infrastructures.list(at))).map((i) => i.infrastructure.identifier),
    ).toEqual(["cluster"]);
    expect(await bed.platform.infrastructures.delete("cluster", at)).toBe(true);
    expect(bed.seen().slice(-2)).toEqual([
      `GET /ng/api/infrastructures?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default&projectIdentifier=payments&environmentIdentifier=staging&page=0&size=100 200`,
      `DELETE /ng/api/infrastructures/cluster?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default&projectIdentifier=payments&environmentIdentifier=staging 200`,
    ]);
  });
});
