/**
 * Templates of the v1 API (`emulator/platform/template.ts`) as the Terraform provider's Go client
 * sends them (`Harness-Account` and `x-api-key`, no `accountIdentifier`): an organization-level
 * template and its stable version, another account refused, a key missing refused, and a project's
 * deletion taking its templates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Call, type CallInit, errorBody, type HttpPlatform, startPlatform } from "./harness";

let platform: HttpPlatform;
let account: string;

/** One request as the provider's Go client sends it. */
const tf: Call = (method, path, init: CallInit = {}) =>
  platform.call(method, path, {
    account: false,
    ...init,
    headers: { "Harness-Account": account, accept: "application/json", ...init.headers },
  });

const yaml = (version: string, scope: string) => `template:
  name: Approve
  identifier: approve
  versionLabel: "${version}"
  type: Stage
${scope}  spec:
    type: Approval
    spec: {}
`;

beforeAll(async () => {
  platform = await startPlatform();
  account = platform.emu.accountId;
  const project = { project: { identifier: "tpl", name: "Templates" } };
  expect((await platform.call("POST", "/ng/api/projects", { json: project })).status).toBe(200);
});
afterAll(async () => {
  await platform.emu.stop();
});

describe("v1 templates", () => {
  it("serves an organization's template: 201 on create, the stable version by GET without a label, 204 on delete", async () => {
    const org = "  orgIdentifier: default\n";
    const made = await tf("POST", "/v1/orgs/default/templates", { json: { template_yaml: yaml("v1", org) } });
    expect([
      made.status,
      made.body.scope,
      made.body.stable_template,
      made.body.org,
      made.body.project,
    ]).toEqual([201, "org", true, "default", undefined]);
    await tf("POST", "/v1/orgs/default/templates", {
      json: { template_yaml: yaml("v2", org), is_stable: true },
    });
    const stable = await tf("GET", "/v1/orgs/default/templates/approve");
    expect([stable.status, stable.body.template.version_label, stable.body.inputs]).toEqual([200, "v2", ""]);
    const deleted = await tf("DELETE", "/v1/orgs/default/templates/approve/versions/v2");
    expect([deleted.status, deleted.body]).toEqual([204, null]);
    const back = await tf("GET", "/v1/orgs/default/templates/approve");
    expect(back.body.template.version_label).toBe("v1");
  });

  it("refuses another account, and a request without a key", async () => {
    const other = await tf("GET", "/v1/templates", { headers: { "Harness-Account": "someone_else" } });
    expect([other.status, other.body]).toEqual([
      403,
      errorBody("NG_ACCESS_DENIED", "Missing permission to access account [someone_else]"),
    ]);
    const keyless = await platform.call("GET", "/v1/templates", { account: false, key: null });
    expect(keyless.status).toBe(401);
  });

  it("a project's deletion takes its templates", async () => {
    const scope = "  orgIdentifier: default\n  projectIdentifier: tpl\n";
    const base = "/v1/orgs/default/projects/tpl/templates";
    expect((await tf("POST", base, { json: { template_yaml: yaml("1", scope) } })).status).toBe(201);
    expect(
      (await platform.call("DELETE", "/ng/api/projects/tpl", { query: { orgIdentifier: "default" } })).status,
    ).toBe(200);
    expect(
      (
        await platform.call("POST", "/ng/api/projects", {
          json: { project: { identifier: "tpl", name: "T" } },
        })
      ).status,
    ).toBe(200);
    const gone = await tf("GET", `${base}/approve/versions/1`);
    expect([gone.status, gone.body.code]).toEqual([404, "ENTITY_NOT_FOUND"]);
  });

  it("keeps one type and one child type per template: another is refused on create and on update; the answer names the child type", async () => {
    const base = "/v1/templates";
    const doc = (version: string, type: string, spec: string) => `template:
  name: Gate
  identifier: gate
  versionLabel: "${version}"
  type: ${type}
  spec:
${spec}`;
    const approval = "    type: Approval\n    spec: {}\n";
    const custom = "    type: Custom\n    spec: {}\n";
    const pipeline = "    stages: []\n";
    const first = await tf("POST", base, { json: { template_yaml: doc("1", "Stage", approval) } });
    expect([first.status, first.body.entity_type, first.body.child_type]).toEqual([201, "Stage", "Approval"]);

    const otherType = await tf("POST", base, { json: { template_yaml: doc("2", "Pipeline", pipeline) } });
    expect([otherType.status, otherType.body]).toEqual([
      400,
      errorBody(
        "INVALID_REQUEST",
        "Error while saving template [gate] of versionLabel [2]: Template should have same template entity type Stage as other template versions",
      ),
    ]);
    const otherChild = await tf("POST", base, { json: { template_yaml: doc("2", "Stage", custom) } });
    expect([otherChild.status, otherChild.body]).toEqual([
      400,
      errorBody(
        "INVALID_REQUEST",
        "Error while saving template [gate] of versionLabel [2]: Template should have same child type Approval as other template versions",
      ),
    ]);
    for (const [type, spec] of [
      ["Pipeline", pipeline],
      ["Stage", custom],
    ]) {
      const update = await tf("PUT", `${base}/gate/versions/1`, {
        json: { template_yaml: doc("1", type!, spec!) },
      });
      expect([update.status, update.body]).toEqual([
        400,
        errorBody("INVALID_REQUEST", "Error while saving template [gate] of versionLabel [1]"),
      ]);
    }
    const same = await tf("POST", base, { json: { template_yaml: doc("2", "Stage", approval) } });
    expect([same.status, same.body.child_type]).toEqual([201, "Approval"]);
    const stored = await tf("GET", `${base}/gate/versions/1`);
    expect(stored.body.template.yaml).toBe(doc("1", "Stage", approval));
  });
});
