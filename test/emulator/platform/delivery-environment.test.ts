/** Platform environments (v2, `emulator/platform/delivery-environment.ts`): CRUD, version, If-Match, cascade. */
import { describe, expect, it } from "vitest";
import {
  answers,
  answersNotFound,
  environmentBody,
  infrastructureBody,
  inProject,
  projectQuery,
  useProjectPlatform,
} from "./entity-fixtures";
import { errorBody, successBody, validationBody } from "./harness";

const p = useProjectPlatform();

const ENV = "/ng/api/environmentsV2";
const VARIABLES_YAML = `environment:
  name: prod
  identifier: prod
  type: Production
  variables:
    - name: region
      type: String
      value: eu-west-1
  overrides:
    manifests:
      - manifest:
          identifier: values
          type: Values
          spec:
            store:
              type: Git
              spec:
                connectorRef: <+input>
                gitFetchType: Branch
                paths: [values.yaml]
                branch: main
`;

describe("platform environments", () => {
  it("creates a Production environment with variables and overrides, versioned, and reads it back", async () => {
    const body = environmentBody("prod", { type: "Production", color: "#00AA00", yaml: VARIABLES_YAML });
    const created = await p().call("POST", ENV, { json: body });
    expect([created.status, created.headers.get("etag")]).toEqual([200, "W/0"]);
    expect(created.body).toEqual(
      successBody({
        environment: {
          accountId: "acc_test",
          ...inProject,
          identifier: "prod",
          name: "prod",
          description: "",
          color: "#00AA00",
          type: "Production",
          deleted: false,
          tags: {},
          version: 0,
          yaml: VARIABLES_YAML,
        },
        createdAt: expect.any(Number),
        lastModifiedAt: expect.any(Number),
      }),
    );
    const updated = await p().call("PUT", ENV, {
      json: { ...body, description: "live" },
      headers: { "if-match": "0" },
    });
    expect([updated.status, updated.body.data.environment.version]).toEqual([200, 1]);
    const read = await p().call("GET", `${ENV}/prod`, {
      query: projectQuery,
      headers: { "if-none-match": "W/1" },
    });
    expect(read.status).toBe(304);
    const stale = await p().call("PUT", ENV, { json: body, headers: { "if-match": "0" } });
    answers(
      stale,
      400,
      errorBody(
        "INVALID_REQUEST",
        "Environment [prod] under Project[proj], Organization [default] couldn't be updated or doesn't exist.",
      ),
    );
  });

  it("refuses an unknown type, a duplicate and a missing environment", async () => {
    const bad = await p().call("POST", ENV, { json: environmentBody("qa", { type: "Staging" }) });
    answers(
      bad,
      400,
      validationBody([
        ["environmentRequest.type", 'Invalid option: expected one of "PreProduction"|"Production"'],
      ]),
    );
    await p().call("POST", ENV, { json: environmentBody("qa") });
    const dup = await p().call("POST", ENV, { json: environmentBody("qa") });
    expect(dup.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "Environment [qa] under Project[proj], Organization [default] in Account [acc_test] already exists",
      ),
    );
    const none = await p().call("GET", `${ENV}/none`, { query: projectQuery });
    answersNotFound(none, "Environment with identifier [none] in project [proj], org [default] not found");
  });

  it("takes its infrastructures along when deleted", async () => {
    await p().call("POST", ENV, { json: environmentBody("dev") });
    expect(
      (await p().call("POST", "/ng/api/infrastructures", { json: infrastructureBody("k8s", "dev") })).status,
    ).toBe(200);
    const deleted = await p().call("DELETE", `${ENV}/dev`, { query: projectQuery });
    answers(deleted, 200, successBody(true));
    const infra = await p().call("GET", "/ng/api/infrastructures/k8s", {
      query: { ...projectQuery, environmentIdentifier: "dev" },
    });
    expect(infra.status).toBe(400);
    expect(infra.body.code).toBe("RESOURCE_NOT_FOUND_EXCEPTION");
  });
});
