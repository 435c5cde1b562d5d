/**
 * Environment groups (v2, `emulator/platform/environment-group.ts`): CRUD by `PUT /{id}`, the
 * list as a POST, the delete's answer naming what it deleted, `If-Match`, refusals.
 */
import { describe, expect, it } from "vitest";
import { answers, answersNotFound, inProject, projectQuery, useProjectPlatform } from "./entity-fixtures";
import { errorBody, successBody } from "./harness";

const p = useProjectPlatform();

const GROUP = "/ng/api/environmentGroup";
const yaml = (id: string, envs: string[]) => `environmentGroup:
  name: ${id} group
  identifier: ${id}
  description: the ${id} environments
  tags:
    team: payments
  orgIdentifier: default
  projectIdentifier: proj
  envIdentifiers: [${envs.join(", ")}]
`;
const body = (id: string, envs: string[], extra: Record<string, unknown> = {}) => ({
  identifier: id,
  ...inProject,
  yaml: yaml(id, envs),
  ...extra,
});

describe("platform environment groups", () => {
  it("creates a group from its YAML, versioned, lists it by POST, updates it by PUT /{id} with If-Match", async () => {
    const created = await p().call("POST", GROUP, { json: body("prod", ["prod_eu"], { color: "#AA0000" }) });
    expect([created.status, created.headers.get("etag")]).toEqual([200, "W/0"]);
    const envGroup = {
      accountId: "acc_test",
      ...inProject,
      identifier: "prod",
      name: "prod group",
      description: "the prod environments",
      tags: { team: "payments" },
      color: "#AA0000",
      envIdentifiers: ["prod_eu"],
      yaml: yaml("prod", ["prod_eu"]),
      deleted: false,
    };
    expect(created.body).toEqual(
      successBody({ envGroup, createdAt: expect.any(Number), lastModifiedAt: expect.any(Number) }),
    );
    const listed = await p().call("POST", `${GROUP}/list`, {
      query: { ...projectQuery, page: "0", size: "10" },
    });
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.content.map((g: { envGroup: { identifier: string } }) => g.envGroup.identifier),
    ).toEqual(["prod"]);
    expect(listed.body.data.totalItems).toBe(1);
    const updated = await p().call("PUT", `${GROUP}/prod`, {
      json: body("prod", ["prod_eu", "prod_us"]),
      headers: { "if-match": "0" },
    });
    expect([updated.status, updated.headers.get("etag"), updated.body.data.envGroup.envIdentifiers]).toEqual([
      200,
      "W/1",
      ["prod_eu", "prod_us"],
    ]);
    const stale = await p().call("PUT", `${GROUP}/prod`, {
      json: body("prod", []),
      headers: { "if-match": "0" },
    });
    answers(
      stale,
      400,
      errorBody(
        "INVALID_REQUEST",
        "Environment Group [prod] under Project[proj], Organization [default] couldn't be updated or doesn't exist.",
      ),
    );
  });

  it("answers a delete with what it deleted; then the group is not found", async () => {
    await p().call("POST", GROUP, { json: body("qa", []) });
    const deleted = await p().call("DELETE", `${GROUP}/qa`, { query: projectQuery });
    answers(
      deleted,
      200,
      successBody({ deleted: true, accountId: "acc_test", ...inProject, identifier: "qa" }),
    );
    const none = await p().call("GET", `${GROUP}/qa`, { query: projectQuery });
    answersNotFound(
      none,
      "Environment Group with identifier [qa] in project [proj], org [default] not found",
    );
  });

  it("refuses a duplicate, and a body without YAML", async () => {
    await p().call("POST", GROUP, { json: body("dev", []) });
    const dup = await p().call("POST", GROUP, { json: body("dev", []) });
    expect(dup.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "Environment Group [dev] under Project[proj], Organization [default] in Account [acc_test] already exists",
      ),
    );
    const bare = await p().call("POST", GROUP, { json: { identifier: "bare", ...inProject } });
    expect([bare.status, bare.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });
});
