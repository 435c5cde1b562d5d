/**
 * Conformance of the platform API's connectors (spec §2 "Connector", §4 rule 2; ref §5) over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  dockerConnector,
  errorBody,
  failureBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  successBody,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let call: Call;
let accountId: string;

beforeAll(async () => {
  platform = await startPlatform();
  call = platform.call;
  accountId = platform.emu.accountId;
  for (const identifier of ["web", "api"]) {
    expect(
      (await call("POST", "/ng/api/projects", { json: { project: { identifier, name: identifier } } }))
        .status,
    ).toBe(200);
  }
});
afterAll(async () => {
  await platform.emu.stop();
});

const post = (body: unknown) => call("POST", "/ng/api/connectors", { json: body });
const get = (id: string, scope: { org?: string; project?: string } = {}) =>
  call("GET", `/ng/api/connectors/${id}`, {
    query: { orgIdentifier: scope.org, projectIdentifier: scope.project },
  });

/** The connector response `data` around an echoed connector (spec §2 field list). */
const connectorData = (connector: Record<string, unknown>) => ({
  connector,
  createdAt: expect.any(Number),
  lastModifiedAt: expect.any(Number),
  status: {
    status: "UNKNOWN",
    errorSummary: null,
    errors: null,
    testedAt: null,
    lastTestedAt: null,
    lastConnectedAt: null,
  },
  activityDetails: { lastActivityTime: expect.any(Number) },
  harnessManaged: false,
  gitDetails: {
    objectId: null,
    branch: null,
    repoIdentifier: null,
    rootFolder: null,
    filePath: null,
    repoName: null,
    commitId: null,
    fileUrl: null,
    repoUrl: null,
  },
  entityValidityDetails: { valid: true, invalidYaml: null },
  governanceMetadata: { deny: false },
  isFavorite: false,
});

describe("POST /ng/api/connectors", () => {
  it("creates an account-level Docker registry connector and echoes it", async () => {
    const body = dockerConnector("hub");
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      successBody(
        connectorData({
          ...body.connector,
          description: "",
          accountIdentifier: accountId,
          orgIdentifier: null,
          projectIdentifier: null,
          tags: {},
        }),
      ),
    );
  });

  it("places the connector in the organization and project named in the body", async () => {
    const body = {
      connector: {
        name: "Web registry",
        identifier: "web_registry",
        description: "images of web",
        accountIdentifier: accountId,
        orgIdentifier: "default",
        projectIdentifier: "web",
        tags: { team: "web" },
        type: "DockerRegistry",
        spec: {
          connectorType: "DockerConnector",
          dockerRegistryUrl: "https://registry.example.test/v2",
          providerType: "Other",
          auth: { type: "UsernamePassword", spec: { username: "bot", passwordRef: "account.registry_pw" } },
          delegateSelectors: ["primary"],
          executeOnDelegate: true,
        },
      },
    };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(connectorData(body.connector));
    const read = await get("web_registry", { org: "default", project: "web" });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(successBody(connectorData(body.connector)));
  });

  it("accepts a connector type whose spec shape is not shown, with any spec object", async () => {
    const res = await post({
      connector: {
        name: "Repo",
        identifier: "repo",
        type: "Bitbucket",
        spec: { url: "https://x.test", anything: [1] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.connector.spec).toEqual({ url: "https://x.test", anything: [1] });
  });

  it("refuses a duplicate identifier in the same scope with INVALID_REQUEST, but not in another scope", async () => {
    expect((await post(dockerConnector("shared", { org: "default", project: "web" }))).status).toBe(200);
    const again = await post(dockerConnector("shared", { org: "default", project: "web" }, "Other name"));
    expect(again.status).toBe(400);
    expect(again.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        `The connector with identifier shared already exists in the account ${accountId}, org default, project web`,
      ),
    );
    expect((await post(dockerConnector("shared", { org: "default", project: "api" }))).status).toBe(200);
    expect((await post(dockerConnector("shared", { org: "default" }))).status).toBe(200);
    const account = await post(dockerConnector("shared"));
    expect(account.status).toBe(200);
    const accountAgain = await post(dockerConnector("shared", {}, "Another"));
    expect(accountAgain.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        `The connector with identifier shared already exists in the account ${accountId}, org null, project null`,
      ),
    );
  });

  it("refuses a duplicate name in the same scope", async () => {
    expect(
      (await post(dockerConnector("named_one", { org: "default", project: "api" }, "Same name"))).status,
    ).toBe(200);
    const res = await post(dockerConnector("named_two", { org: "default", project: "api" }, "Same name"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_REQUEST", "Connector with name [Same name] already exists"));
  });

  it("refuses the reserved identifier harnessSecretManager", async () => {
    const res = await post(dockerConnector("harnessSecretManager"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        `The connector with identifier harnessSecretManager already exists in the account ${accountId}, org null, project null`,
      ),
    );
  });

  it("refuses a project without an organization", async () => {
    const res = await post(dockerConnector("no_org", { project: "web" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Project web specified without the org Identifier"),
    );
  });

  it("answers 400 RESOURCE_NOT_FOUND_EXCEPTION for a missing organization or project", async () => {
    const org = await post(dockerConnector("lost", { org: "nowhere" }));
    expect(org.status).toBe(400);
    expect(org.body).toEqual(failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "org [nowhere] not found."));
    const project = await post(dockerConnector("lost", { org: "default", project: "nowhere" }));
    expect(project.status).toBe(400);
    expect(project.body).toEqual(failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "project [nowhere] not found."));
  });

  it("refuses a body accountIdentifier of another account", async () => {
    const body = dockerConnector("foreign");
    const res = await post({ connector: { ...body.connector, accountIdentifier: "someone_else" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", `Value mismatch, previous: ${accountId} current: someone_else`),
    );
  });

  const docker = dockerConnector("v").connector;
  const withSpec = (spec: unknown) => ({ connector: { ...docker, spec } });
  it.each<[string, unknown, [string, string][]]>([
    ["no connector object", {}, [["connector", "must not be null"]]],
    [
      "an empty connector",
      { connector: {} },
      [
        ["connector.name", "name is required"],
        ["connector.identifier", "identifier is required"],
        ["connector.type", "must not be null"],
        ["connector.spec", "must not be null"],
      ],
    ],
    [
      "a spec that is not an object",
      { connector: { name: "n", identifier: "i", type: "Github", spec: [] } },
      [["connector.spec", "Invalid input: expected record, received array"]],
    ],
    [
      "a bad identifier",
      { connector: { ...docker, identifier: "9lives" } },
      [
        [
          "connector.identifier",
          "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
        ],
      ],
    ],
    [
      "an empty Docker spec",
      withSpec({}),
      [
        ["connector.spec.dockerRegistryUrl", "dockerRegistryUrl must be a URL"],
        [
          "connector.spec.providerType",
          'Invalid option: expected one of "DockerHub"|"Harbor"|"Quay"|"Other"',
        ],
        ["connector.spec.auth", "must not be null"],
      ],
    ],
    [
      "a registry URL that is not a URL",
      withSpec({ ...docker.spec, dockerRegistryUrl: "docker.io" }),
      [["connector.spec.dockerRegistryUrl", "dockerRegistryUrl must be a URL"]],
    ],
    [
      "an unknown provider type",
      withSpec({ ...docker.spec, providerType: "Gitlab" }),
      [
        [
          "connector.spec.providerType",
          'Invalid option: expected one of "DockerHub"|"Harbor"|"Quay"|"Other"',
        ],
      ],
    ],
    [
      "an unknown auth type",
      withSpec({ ...docker.spec, auth: { type: "Token" } }),
      [
        [
          "connector.spec.auth.type",
          "Invalid discriminator value. Expected 'Anonymous' | 'UsernamePassword'",
        ],
      ],
    ],
    [
      "username and password auth without passwordRef",
      withSpec({ ...docker.spec, auth: { type: "UsernamePassword", spec: { username: "u" } } }),
      [["connector.spec.auth.spec.passwordRef", "must not be null"]],
    ],
    [
      "both username and usernameRef",
      withSpec({
        ...docker.spec,
        auth: {
          type: "UsernamePassword",
          spec: { username: "u", usernameRef: "account.u", passwordRef: "account.p" },
        },
      }),
      [["connector.spec.auth.spec", "exactly one of username and usernameRef is required"]],
    ],
  ])("refuses %s with a FailureDTO naming each field", async (_label, body, violations) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody(violations));
  });
});

describe("POST /ng/api/connectors: typed kinds", () => {
  const kind = (identifier: string, type: string, spec: unknown) => ({
    connector: { name: identifier, identifier, type, spec },
  });

  it('refuses an unknown connector type with 400 INVALID_REQUEST (ConnectorType\'s "Invalid value")', async () => {
    const res = await post(kind("nope", "Subversion", { url: "https://svn.example.test" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Unable to process JSON: Invalid value: Subversion"),
    );
  });

  it("reads the type case-insensitively and answers with its display name", async () => {
    const res = await post(
      kind("helm_lower", "httphelmrepo", { helmRepoUrl: "https://charts.example.test" }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.connector.type).toBe("HttpHelmRepo");
  });

  it.each<[string, string, unknown]>([
    [
      "Github",
      "Github",
      {
        url: "https://github.com/acme",
        type: "Account",
        authentication: {
          type: "Http",
          spec: { type: "UsernameToken", spec: { username: "u", tokenRef: "account.t" } },
        },
      },
    ],
    [
      "Git",
      "Git",
      { url: "git@x.test:a/b.git", connectionType: "Repo", type: "Ssh", spec: { sshKeyRef: "account.k" } },
    ],
    [
      "K8sCluster inheriting",
      "K8sCluster",
      { credential: { type: "InheritFromDelegate" }, delegateSelectors: ["d"] },
    ],
    ["Aws by IRSA", "Aws", { credential: { type: "Irsa" }, delegateSelectors: ["d"] }],
    ["Gcp by key", "Gcp", { credential: { type: "ManualConfig", spec: { secretKeyRef: "account.gcp" } } }],
    [
      "HttpHelmRepo",
      "HttpHelmRepo",
      { helmRepoUrl: "https://charts.example.test", auth: { type: "Anonymous" } },
    ],
  ])("accepts a complete %s spec and echoes it", async (label, type, spec) => {
    const res = await post(kind(`ok_${label.split(" ")[0]!.toLowerCase()}`, type, spec));
    expect(res.status).toBe(200);
    expect(res.body.data.connector.spec).toEqual(spec);
  });

  it.each<[string, string, unknown, [string, string][]]>([
    [
      "a Github spec without url, type and authentication",
      "Github",
      {},
      [
        ["connector.spec.url", "must not be null"],
        ["connector.spec.type", 'Invalid option: expected one of "Account"|"Repo"'],
        ["connector.spec.authentication", "must not be null"],
      ],
    ],
    [
      "a Git spec with an unknown auth type",
      "Git",
      { url: "https://git.example.test/a.git", connectionType: "Repo", type: "Token", spec: {} },
      [["connector.spec.type", 'Invalid option: expected one of "Http"|"Ssh"']],
    ],
    [
      "a K8sCluster manual config without a master URL",
      "K8sCluster",
      { credential: { type: "ManualConfig", spec: { auth: { type: "ServiceAccount", spec: {} } } } },
      [["connector.spec.credential.spec.masterUrl", "must not be null"]],
    ],
    [
      "an Aws manual config without its secret key",
      "Aws",
      { credential: { type: "ManualConfig", spec: { accessKey: "AKIDEXAMPLE" } } },
      [["connector.spec.credential.spec.secretKeyRef", "must not be null"]],
    ],
    ["a Gcp spec without a credential", "Gcp", {}, [["connector.spec.credential", "must not be null"]]],
    [
      "an HttpHelmRepo spec without its URL",
      "HttpHelmRepo",
      { auth: { type: "Anonymous" } },
      [["connector.spec.helmRepoUrl", "must not be null"]],
    ],
  ])("refuses %s with a FailureDTO naming each field", async (_label, type, spec, violations) => {
    const res = await post(kind("bad_kind", type, spec));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody(violations));
  });
});

describe("GET /ng/api/connectors/{identifier}", () => {
  it("answers 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION for a missing connector, printing null scopes", async () => {
    const account = await get("absent");
    expect(account.status).toBe(400);
    expect(account.body).toEqual(
      failureBody(
        "RESOURCE_NOT_FOUND_EXCEPTION",
        "Connector with identifier [absent] in project [null], org [null] not found",
      ),
    );
    const project = await get("absent", { org: "default", project: "web" });
    expect(project.body).toEqual(
      failureBody(
        "RESOURCE_NOT_FOUND_EXCEPTION",
        "Connector with identifier [absent] in project [web], org [default] not found",
      ),
    );
  });

  it("reads the scope from the query: a project connector is not found at account scope", async () => {
    expect((await post(dockerConnector("scoped", { org: "default", project: "web" }))).status).toBe(200);
    expect((await get("scoped", { org: "default", project: "web" })).status).toBe(200);
    expect((await get("scoped")).status).toBe(400);
    expect((await get("scoped", { org: "default" })).status).toBe(400);
  });
});

describe("PUT /ng/api/connectors", () => {
  it("replaces the connector named by the body (no identifier in the path)", async () => {
    const created = await post({
      connector: {
        ...dockerConnector("upd", { org: "default" }).connector,
        description: "old",
        tags: { a: "b" },
      },
    });
    expect(created.status).toBe(200);
    const replacement = {
      connector: {
        name: "Updated",
        identifier: "upd",
        orgIdentifier: "default",
        type: "DockerRegistry",
        spec: { dockerRegistryUrl: "https://quay.io", providerType: "Quay", auth: { type: "Anonymous" } },
      },
    };
    const res = await call("PUT", "/ng/api/connectors", { json: replacement });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      successBody(
        connectorData({
          ...replacement.connector,
          description: "",
          tags: {},
          accountIdentifier: accountId,
          projectIdentifier: null,
        }),
      ),
    );
    expect(res.body.data.createdAt).toBe(created.body.data.createdAt);
    expect((await get("upd", { org: "default" })).body.data).toEqual(res.body.data);
  });

  it("answers 400 INVALID_REQUEST for a connector that does not exist", async () => {
    const res = await call("PUT", "/ng/api/connectors", { json: dockerConnector("never") });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_REQUEST", "No connector exists with the  Identifier never"));
  });

  it("refuses a rename onto another connector's name in the scope", async () => {
    expect((await post(dockerConnector("first", { org: "default" }, "First"))).status).toBe(200);
    expect((await post(dockerConnector("second", { org: "default" }, "Second"))).status).toBe(200);
    const res = await call("PUT", "/ng/api/connectors", {
      json: dockerConnector("second", { org: "default" }, "First"),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_REQUEST", "Connector with name [First] already exists"));
  });

  it("validates the body like create", async () => {
    const res = await call("PUT", "/ng/api/connectors", {
      json: { connector: { ...dockerConnector("first").connector, spec: {} } },
    });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe("FAILURE");
    expect(res.body.errors.map((e: { fieldId: string }) => e.fieldId)).toEqual([
      "dockerRegistryUrl",
      "providerType",
      "auth",
    ]);
  });
});

describe("DELETE /ng/api/connectors/{identifier}", () => {
  it("soft-deletes and answers data: true; the identifier can then be created again", async () => {
    expect((await post(dockerConnector("gone", { org: "default", project: "web" }))).status).toBe(200);
    const res = await call("DELETE", "/ng/api/connectors/gone", {
      query: { orgIdentifier: "default", projectIdentifier: "web" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(successBody(true));
    expect((await get("gone", { org: "default", project: "web" })).status).toBe(400);
    expect(
      (
        await call("PUT", "/ng/api/connectors", {
          json: dockerConnector("gone", { org: "default", project: "web" }),
        })
      ).status,
    ).toBe(400);
    expect((await post(dockerConnector("gone", { org: "default", project: "web" }))).status).toBe(200);
  });

  it("answers 400 INVALID_REQUEST for a missing connector", async () => {
    const res = await call("DELETE", "/ng/api/connectors/nothing", { query: { orgIdentifier: "default" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        `No connector exists with the identifier nothing in account ${accountId}, organisation default, project null`,
      ),
    );
  });

  it("refuses to delete a connector a pipeline refers to, unless forceDelete=true", async () => {
    expect((await post(dockerConnector("in_use", { org: "default", project: "api" }))).status).toBe(200);
    expect((await post(dockerConnector("acct_in_use"))).status).toBe(200);
    const yaml = simplePipeline(
      "uses_connector",
      "api",
      "default",
      "  properties:\n    ci:\n      codebase:\n        connectorRef: in_use\n  variables:\n    - name: reg\n      connectorRef: account.acct_in_use\n",
    );
    const created = await call("POST", "/pipeline/api/pipelines/v2", {
      yaml,
      query: { orgIdentifier: "default", projectIdentifier: "api" },
    });
    expect(created.status).toBe(200);

    const scope = { orgIdentifier: "default", projectIdentifier: "api" };
    const res = await call("DELETE", "/ng/api/connectors/in_use", { query: scope });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(
        "ENTITY_REFERENCE_EXCEPTION",
        "Could not delete the connector in_use as it is referenced by other entities",
      ),
    );
    const account = await call("DELETE", "/ng/api/connectors/acct_in_use");
    expect(account.body.code).toBe("ENTITY_REFERENCE_EXCEPTION");
    const forced = await call("DELETE", "/ng/api/connectors/in_use", {
      query: { ...scope, forceDelete: "true" },
    });
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual(successBody(true));
  });
});

describe("GET /ng/api/connectors (list)", () => {
  it("lists the live connectors of exactly the scope asked for, in the NG page shape", async () => {
    const other = await startPlatform();
    try {
      await other.call("POST", "/ng/api/projects", { json: { project: { identifier: "p", name: "p" } } });
      for (const id of ["one", "two", "three"]) {
        expect(
          (
            await other.call("POST", "/ng/api/connectors", {
              json: dockerConnector(id, { org: "default", project: "p" }),
            })
          ).status,
        ).toBe(200);
      }
      await other.call("POST", "/ng/api/connectors", {
        json: dockerConnector("elsewhere", { org: "default" }),
      });
      await other.call("DELETE", "/ng/api/connectors/two", {
        query: { orgIdentifier: "default", projectIdentifier: "p" },
      });
      const res = await other.call("GET", "/ng/api/connectors", {
        query: { orgIdentifier: "default", projectIdentifier: "p" },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        totalItems: 2,
        totalPages: 1,
        pageItemCount: 2,
        pageSize: 100,
        pageIndex: 0,
        empty: false,
      });
      expect(
        res.body.data.content
          .map((c: { connector: { identifier: string } }) => c.connector.identifier)
          .sort(),
      ).toEqual(["one", "three"]);
      const search = await other.call("GET", "/ng/api/connectors", {
        query: { orgIdentifier: "default", projectIdentifier: "p", searchTerm: "thr" },
      });
      expect(
        search.body.data.content.map((c: { connector: { identifier: string } }) => c.connector.identifier),
      ).toEqual(["three"]);
    } finally {
      await other.emu.stop();
    }
  });
});
