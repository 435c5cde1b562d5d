/**
 * Service overrides (v2, `emulator/platform/service-overrides.ts`): the identifier made of the
 * references, the spec parsed from `yamlInternal`, `PUT /` naming the override in the body, the
 * list as a POST, the environment check, the refusals of a type without what it needs.
 */
import { describe, expect, it } from "vitest";
import {
  answers,
  answersNotFound,
  environmentBody,
  inProject,
  projectQuery,
  serviceBody,
  useProjectPlatform,
} from "./entity-fixtures";
import { errorBody, failureBody, successBody } from "./harness";

const p = useProjectPlatform((q) =>
  q.call("POST", "/ng/api/environmentsV2", { json: environmentBody("env") }),
);

const BASE = "/ng/api/serviceOverrides";
const spec = (value: string) => `variables:\n  - name: replicas\n    type: String\n    value: "${value}"\n`;

describe("platform service overrides", () => {
  it("creates an override named by its references, reads, replaces by PUT /, lists by POST and deletes it", async () => {
    const created = await p().call("POST", BASE, {
      json: {
        ...inProject,
        environmentRef: "env",
        serviceRef: "checkout",
        type: "ENV_SERVICE_OVERRIDE",
        yamlInternal: spec("2"),
      },
    });
    const override = {
      identifier: "env_checkout",
      accountId: "acc_test",
      ...inProject,
      environmentRef: "env",
      serviceRef: "checkout",
      type: "ENV_SERVICE_OVERRIDE",
      spec: { variables: [{ name: "replicas", type: "String", value: "2" }] },
      yamlInternal: spec("2"),
    };
    answers(created, 200, successBody(override));
    expect(created.headers.get("etag")).toBe(null);
    const read = await p().call("GET", `${BASE}/env_checkout`, { query: projectQuery });
    answers(read, 200, successBody(override));
    const updated = await p().call("PUT", BASE, {
      json: {
        ...inProject,
        identifier: "env_checkout",
        environmentRef: "env",
        serviceRef: "checkout",
        type: "ENV_SERVICE_OVERRIDE",
        yamlInternal: spec("3"),
      },
    });
    expect(updated.body.data.spec).toEqual({ variables: [{ name: "replicas", type: "String", value: "3" }] });
    const listed = await p().call("POST", `${BASE}/list`, { query: projectQuery });
    expect([
      listed.status,
      listed.body.data.content.map((o: { identifier: string }) => o.identifier),
    ]).toEqual([200, ["env_checkout"]]);
    answers(
      await p().call("DELETE", `${BASE}/env_checkout`, { query: projectQuery }),
      200,
      successBody(true),
    );
    answersNotFound(
      await p().call("GET", `${BASE}/env_checkout`, { query: projectQuery }),
      "Service Override with identifier [env_checkout] in project [proj], org [default] not found",
    );
  });

  it("refuses an override whose environment does not exist, and a type without what it needs", async () => {
    const noEnv = await p().call("POST", BASE, {
      json: { ...inProject, environmentRef: "nowhere", type: "ENV_GLOBAL_OVERRIDE" },
    });
    expect([noEnv.status, noEnv.body]).toEqual([
      400,
      failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "Environment with ref [nowhere] not found"),
    ]);
    const noInfra = await p().call("POST", BASE, {
      json: { ...inProject, environmentRef: "env", serviceRef: "checkout", type: "INFRA_SERVICE_OVERRIDE" },
    });
    expect(noInfra.body).toEqual(
      errorBody("INVALID_REQUEST", "Infra Identifier should not be empty for INFRA-SERVICE override"),
    );
    const noService = await p().call("POST", BASE, {
      json: { ...inProject, environmentRef: "env", type: "ENV_SERVICE_OVERRIDE" },
    });
    expect(noService.body).toEqual(
      errorBody("INVALID_REQUEST", "ServiceRef should not be empty for ENV-SERVICE override"),
    );
    await p().call("POST", BASE, {
      json: { ...inProject, environmentRef: "env", type: "ENV_GLOBAL_OVERRIDE" },
    });
    const dup = await p().call("POST", BASE, {
      json: { ...inProject, environmentRef: "env", type: "ENV_GLOBAL_OVERRIDE" },
    });
    expect(dup.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "Service Override [env] under Project[proj], Organization [default] in Account [acc_test] already exists",
      ),
    );
  });

  it("deletes an environment's overrides with it, and only those (harness-core deleteAllInEnv)", async () => {
    await p().call("POST", "/ng/api/environmentsV2", { json: environmentBody("gone") });
    for (const environmentRef of ["gone", "env"]) {
      await p().call("POST", BASE, {
        json: { ...inProject, environmentRef, serviceRef: "cart", type: "ENV_SERVICE_OVERRIDE" },
      });
    }
    answers(
      await p().call("DELETE", "/ng/api/environmentsV2/gone", { query: projectQuery }),
      200,
      successBody(true),
    );
    answersNotFound(
      await p().call("GET", `${BASE}/gone_cart`, { query: projectQuery }),
      "Service Override with identifier [gone_cart] in project [proj], org [default] not found",
    );
    // An environment made again under the same identifier starts without the old overrides.
    await p().call("POST", "/ng/api/environmentsV2", { json: environmentBody("gone") });
    const listed = await p().call("POST", `${BASE}/list`, { query: projectQuery });
    expect(listed.body.data.content.map((o: { identifier: string }) => o.identifier).sort()).toEqual([
      "env",
      "env_cart",
    ]);
  });

  it("deletes a service's overrides with it, and only those (harness-core deleteAllOfService)", async () => {
    await p().call("POST", "/ng/api/servicesV2", { json: serviceBody("billing") });
    for (const serviceRef of ["billing", "shipping"]) {
      const made = await p().call("POST", BASE, {
        json: { ...inProject, environmentRef: "env", serviceRef, type: "ENV_SERVICE_OVERRIDE" },
      });
      expect(made.status).toBe(200);
    }
    answers(
      await p().call("DELETE", "/ng/api/servicesV2/billing", { query: projectQuery }),
      200,
      successBody(true),
    );
    answersNotFound(
      await p().call("GET", `${BASE}/env_billing`, { query: projectQuery }),
      "Service Override with identifier [env_billing] in project [proj], org [default] not found",
    );
    expect((await p().call("GET", `${BASE}/env_shipping`, { query: projectQuery })).status).toBe(200);
  });
});
