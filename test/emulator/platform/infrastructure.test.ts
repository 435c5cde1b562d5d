/** Infrastructure definitions (`emulator/platform/infrastructure.ts`): KubernetesDirect, KubernetesGcp, environment check. */
import { describe, expect, it } from "vitest";
import {
  answers,
  answersNotFound,
  environmentBody,
  infrastructureBody,
  infrastructureYaml,
  projectQuery,
  useProjectPlatform,
} from "./entity-fixtures";
import { errorBody, failureBody, successBody, validationBody } from "./harness";

const p = useProjectPlatform((q) =>
  q.call("POST", "/ng/api/environmentsV2", { json: environmentBody("env") }),
);

const INFRA = "/ng/api/infrastructures";
const envQuery = { ...projectQuery, environmentIdentifier: "env" };

describe("infrastructure definitions", () => {
  it("creates a KubernetesDirect infrastructure, replaces it with a GKE one, lists and deletes it", async () => {
    const created = await p().call("POST", INFRA, { json: infrastructureBody("k8s", "env") });
    expect(created.status).toBe(200);
    expect(created.headers.get("etag")).toBeNull();
    expect(created.body).toEqual(
      successBody({
        infrastructure: {
          accountId: "acc_test",
          identifier: "k8s",
          orgIdentifier: "default",
          projectIdentifier: "proj",
          environmentRef: "env",
          name: "k8s",
          description: "",
          tags: {},
          type: "KubernetesDirect",
          deploymentType: "Kubernetes",
          yaml: infrastructureYaml("k8s", "env"),
        },
        createdAt: expect.any(Number),
        lastModifiedAt: expect.any(Number),
      }),
    );
    const gke = infrastructureBody("k8s", "env", "KubernetesGcp", "    cluster: prod-gke\n");
    const updated = await p().call("PUT", INFRA, { json: gke });
    expect([updated.status, updated.body.data.infrastructure.type]).toEqual([200, "KubernetesGcp"]);
    const list = await p().call("GET", INFRA, { query: envQuery });
    expect(
      list.body.data.content.map((i: { infrastructure: { yaml: string } }) => i.infrastructure.yaml),
    ).toEqual([gke.yaml]);
    const deleted = await p().call("DELETE", `${INFRA}/k8s`, { query: envQuery });
    answers(deleted, 200, successBody(true));
  });

  it("refuses an infrastructure whose environment does not exist, on create and on update", async () => {
    const missing = failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "Environment with ref [nope] not found");
    const create = await p().call("POST", INFRA, { json: infrastructureBody("i1", "nope") });
    answers(create, 400, missing);
    const update = await p().call("PUT", INFRA, { json: infrastructureBody("i1", "nope") });
    answers(update, 400, missing);
  });

  it("checks the typed GKE spec and the YAML against the request", async () => {
    const noCluster = await p().call("POST", INFRA, {
      json: infrastructureBody("gke", "env", "KubernetesGcp"),
    });
    answers(
      noCluster,
      400,
      validationBody([["yaml.infrastructureDefinition.spec.cluster", "must not be null"]]),
    );
    const other = { ...infrastructureBody("i2", "env"), environmentRef: "elsewhere" };
    const mismatch = await p().call("POST", INFRA, { json: other });
    expect(mismatch.body).toEqual(
      errorBody("INVALID_REQUEST", "Expected environmentRef in YAML to be [elsewhere], but was [env]"),
    );
  });

  it("answers a missing infrastructure's GET with a 400 FailureDTO and requires the environment parameter", async () => {
    const none = await p().call("GET", `${INFRA}/none`, { query: envQuery });
    answersNotFound(
      none,
      "Infrastructure with identifier [none] in project [proj], org [default], environment [env] not found",
    );
    const noEnv = await p().call("GET", `${INFRA}/none`, { query: projectQuery });
    answers(noEnv, 400, validationBody([["environmentIdentifier", "must not be null"]]));
  });
});
