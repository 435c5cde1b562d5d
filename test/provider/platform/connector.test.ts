/**
 * Connector: check (field by field, no request), diff (pure), the wire mapping of the typed
 * container-registry spec, and the lifecycle against the emulator at account, organization and
 * project scope, directly and through the real dynamic-provider gRPC host (needs `npm run build`).
 * Each lifecycle test makes the connector it needs under an identifier of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectorId,
  connectorProviderText,
  connectorReplaceOnChange,
  dockerRegistryFromWire,
  impl,
  parseConnectorId,
  typedFromWire,
  wireSpec,
} from "../../../provider/platform/connector";
import type { PlatformClient } from "../../../sdk";
import { type Driver, MODES, type Mode } from "../harness";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const docker = { url: "https://index.docker.io/v2/", providerType: "DockerHub" };
const valid = { identifier: "dockerhub", name: "Docker Hub", dockerRegistry: docker };

let bed: Testbed;
let platform: PlatformClient;
let drivers: Record<Mode, Driver>;

/** `METHOD path` of each request the provider sent since the last reset. */
const sent = () => bed.sent();
/** Forgets every request seen so far, by the emulator and by the proxy. */
const reset = () => bed.reset();

beforeAll(async () => {
  bed = await startTestbed();
  platform = bed.platform;
  drivers = await bed.drivers(impl, connectorProviderText);
  await createProject(platform, "payments", "Payments");
});

afterAll(async () => {
  await bed?.stop();
});

describe("Connector check", () => {
  it("applies the defaults: account scope, anonymous auth, through a delegate", async () => {
    expect(await impl.check({}, valid)).toEqual({
      inputs: {
        identifier: "dockerhub",
        name: "Docker Hub",
        description: "",
        tags: {},
        dockerRegistry: {
          ...docker,
          auth: { type: "Anonymous" },
          delegateSelectors: [],
          executeOnDelegate: true,
        },
        adopt: false,
      },
    });
  });

  const rows: [label: string, inputs: Props, property: string, reason: string][] = [
    [
      "bad identifier",
      { ...valid, identifier: "docker-hub" },
      "identifier",
      "can only contain alphanumeric, underscore and $ characters",
    ],
    [
      "reserved identifier",
      { ...valid, identifier: "null" },
      "identifier",
      "null is a keyword, so cannot be used",
    ],
    ["empty name", { ...valid, name: "" }, "name", "name cannot be empty."],
    ["bad organization", { ...valid, org: "1org" }, "org", "can only contain alphanumeric"],
    [
      "project without organization",
      { ...valid, project: "payments" },
      "org",
      "a project-level connector needs org as well as project",
    ],
    [
      "no spec",
      { identifier: "x", name: "X" },
      "dockerRegistry",
      "exactly one of dockerRegistry, github, git, kubernetes, aws, gcp, httpHelm and generic is required",
    ],
    [
      "two specs",
      { ...valid, generic: { type: "Github", spec: {} } },
      "dockerRegistry",
      "exactly one of dockerRegistry, github, git, kubernetes, aws, gcp, httpHelm and generic is required",
    ],
    [
      "registry URL not a URL",
      { ...valid, dockerRegistry: { ...docker, url: "index.docker.io" } },
      "dockerRegistry.url",
      "url must be an http(s) URL",
    ],
    [
      "registry URL of another scheme",
      { ...valid, dockerRegistry: { ...docker, url: "ftp://registry.example.test" } },
      "dockerRegistry.url",
      "url must be an http(s) URL",
    ],
    [
      "unknown provider type",
      { ...valid, dockerRegistry: { ...docker, providerType: "Gitlab" } },
      "dockerRegistry.providerType",
      "providerType must be one of DockerHub, Harbor, Quay, Other",
    ],
    [
      "unknown auth type",
      { ...valid, dockerRegistry: { ...docker, auth: { type: "Token" } } },
      "dockerRegistry.auth.type",
      'auth.type must be "Anonymous" or "UsernamePassword"',
    ],
    [
      "password without a secret reference",
      { ...valid, dockerRegistry: { ...docker, auth: { type: "UsernamePassword", username: "ci" } } },
      "dockerRegistry.auth.passwordRef",
      "must be a secret reference such as account.docker_password",
    ],
    [
      "a password instead of a secret reference",
      {
        ...valid,
        dockerRegistry: {
          ...docker,
          auth: { type: "UsernamePassword", username: "ci", passwordRef: "hunter2 !" },
        },
      },
      "dockerRegistry.auth.passwordRef",
      "the name of a stored secret, not its value",
    ],
    [
      "both username and usernameRef",
      {
        ...valid,
        dockerRegistry: {
          ...docker,
          auth: {
            type: "UsernamePassword",
            username: "ci",
            usernameRef: "account.ci_user",
            passwordRef: "account.pw",
          },
        },
      },
      "dockerRegistry.auth",
      "exactly one of username and usernameRef is required",
    ],
    [
      "neither username nor usernameRef",
      {
        ...valid,
        dockerRegistry: { ...docker, auth: { type: "UsernamePassword", passwordRef: "account.pw" } },
      },
      "dockerRegistry.auth",
      "exactly one of username and usernameRef is required",
    ],
    [
      "password in the anonymous auth",
      { ...valid, dockerRegistry: { ...docker, auth: { type: "Anonymous", passwordRef: "account.pw" } } },
      "dockerRegistry.auth.passwordRef",
      'unknown property "passwordRef"',
    ],
    [
      "empty delegate selector",
      { ...valid, dockerRegistry: { ...docker, delegateSelectors: [""] } },
      "dockerRegistry.delegateSelectors[0]",
      "Too small",
    ],
    [
      "misspelt registry field",
      { ...valid, dockerRegistry: { ...docker, dockerRegistryUrl: "https://x.test" } },
      "dockerRegistry.dockerRegistryUrl",
      'unknown property "dockerRegistryUrl"',
    ],
    [
      "generic without type",
      { identifier: "gh", name: "GitHub", generic: { spec: {} } },
      "generic.type",
      "type is required",
    ],
    [
      "generic spec not an object",
      { identifier: "gh", name: "GitHub", generic: { type: "Github", spec: "url=x" } },
      "generic.spec",
      "spec must be an object",
    ],
    ["tags with a number", { ...valid, tags: { tier: 1 } }, "tags.tier", "expected string"],
    ["adopt not a boolean", { ...valid, adopt: 1 }, "adopt", "adopt must be true or false"],
    ["misspelt input", { ...valid, scope: "account" }, "scope", 'unknown property "scope"'],
  ];

  itRefusesWithNoRequest(rows, () => ({ bed, drivers }));
});

describe("Connector wire mapping", () => {
  it("writes the typed registry spec as the API's DockerRegistry spec and reads it back", async () => {
    const inputs = (
      await impl.check(
        {},
        {
          ...valid,
          dockerRegistry: {
            ...docker,
            auth: { type: "UsernamePassword", username: "ci", passwordRef: "account.dockerhub_pat" },
            delegateSelectors: ["k8s"],
          },
        },
      )
    ).inputs!;
    const wire = wireSpec(inputs);
    expect(wire).toEqual({
      type: "DockerRegistry",
      spec: {
        dockerRegistryUrl: "https://index.docker.io/v2/",
        providerType: "DockerHub",
        auth: { type: "UsernamePassword", spec: { username: "ci", passwordRef: "account.dockerhub_pat" } },
        delegateSelectors: ["k8s"],
        executeOnDelegate: true,
      },
    });
    expect(dockerRegistryFromWire(wire.type, wire.spec)).toEqual(inputs.dockerRegistry);
    expect(dockerRegistryFromWire("Github", wire.spec)).toBeUndefined();
    expect(
      dockerRegistryFromWire("DockerRegistry", { ...wire.spec, auth: { type: "Token" } }),
    ).toBeUndefined();
  });

  it("sends a generic spec as given", () => {
    expect(
      wireSpec({
        generic: { type: "Github", spec: { url: "https://github.com/acme", connectionType: "Account" } },
      }),
    ).toEqual({
      type: "Github",
      spec: { url: "https://github.com/acme", connectionType: "Account" },
    });
  });

  it.each([
    [{ identifier: "c" }, "c"],
    [{ org: "default", identifier: "c" }, "default/c"],
    [{ org: "default", project: "payments", identifier: "c" }, "default/payments/c"],
  ])("ids %j as %s and reads the id back", (key, id) => {
    expect(connectorId(key)).toBe(id);
    expect(parseConnectorId(id)).toEqual(key);
  });

  it.each(["", "a/b/c/d", "a//c"])("refuses the id %j", (id) => {
    expect(() => parseConnectorId(id)).toThrow("invalid connector id");
  });
});

describe("Connector diff", () => {
  const base = { identifier: "dockerhub", name: "Docker Hub", description: "", tags: {}, adopt: false };
  const dockerIn = { ...docker, auth: { type: "Anonymous" }, delegateSelectors: [], executeOnDelegate: true };
  const olds = {
    ...base,
    org: "default",
    dockerRegistry: dockerIn,
    type: "DockerRegistry",
    spec: {},
    createdAt: 1,
    lastModifiedAt: 1,
  } as never;

  it("sees no change for the same connector", async () => {
    expect(
      await impl.diff("default/dockerhub", olds, {
        ...base,
        org: "default",
        dockerRegistry: dockerIn,
        adopt: true,
      } as never),
    ).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates name, description, tags and spec in place", async () => {
    const news = {
      ...base,
      org: "default",
      name: "Hub",
      tags: { a: "b" },
      dockerRegistry: { ...dockerIn, url: "https://registry.example.test/v2/" },
    };
    expect(await impl.diff("default/dockerhub", olds, news as never)).toMatchObject({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on scope and identifier, deleting first when the scope stays (names are unique in a scope)", async () => {
    expect(connectorReplaceOnChange).toEqual(["org", "project", "identifier"]);
    expect(
      await impl.diff("default/dockerhub", olds, {
        ...base,
        org: "default",
        identifier: "hub",
        dockerRegistry: dockerIn,
      } as never),
    ).toMatchObject({
      replaces: ["identifier"],
      deleteBeforeReplace: true,
    });
    expect(
      await impl.diff("default/dockerhub", olds, {
        ...base,
        org: "default",
        project: "payments",
        dockerRegistry: dockerIn,
      } as never),
    ).toMatchObject({
      replaces: ["project"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces when the connector type changes", async () => {
    expect(
      await impl.diff("default/dockerhub", olds, {
        ...base,
        org: "default",
        generic: { type: "Github", spec: {} },
      } as never),
    ).toMatchObject({
      changes: true,
      replaces: ["type"],
      deleteBeforeReplace: true,
    });
  });
});

const scopes = [
  ["account", {}, ""],
  ["organization", { org: "default" }, "default/"],
  ["project", { org: "default", project: "payments" }, "default/payments/"],
] as const;

describe.each(MODES)("Connector lifecycle (%s)", (via) => {
  let d: Driver;
  beforeAll(() => {
    d = drivers[via];
  });

  describe.each(scopes)("at %s scope", (_scope, where, idPrefix) => {
    /** An identifier no other test uses. */
    const fresh = () => unique(`hub_${slug(via)}`, "_");
    /** The connector's name: unique in its scope too, like the identifier. */
    const nameOf = (identifier: string) => `Docker Hub ${via} ${identifier}`;
    const query = { ...where };
    const programFor = (identifier: string) => ({
      ...where,
      identifier,
      name: nameOf(identifier),
      description: "Public images",
      tags: { team: "platform" },
      dockerRegistry: {
        ...docker,
        auth: { type: "UsernamePassword", username: "ci", passwordRef: "account.dockerhub_pat" },
      },
    });
    /** The program after its update: another registry, anonymous. */
    const updatedFor = (identifier: string) => ({
      ...programFor(identifier),
      dockerRegistry: { ...docker, providerType: "Other", url: "https://registry.example.test/v2/" },
    });
    /** A connector of the test's own, created by the provider from `program(identifier)`. */
    const createdConnector = async (program: (identifier: string) => Props = programFor) => {
      const identifier = fresh();
      const inputs = (await d.check({}, program(identifier))).inputs;
      const { id, outs } = await d.create(inputs);
      return { identifier, inputs, id, outs };
    };

    it("creates it with one POST", async () => {
      const identifier = fresh();
      const inputs = (await d.check({}, programFor(identifier))).inputs;
      reset();
      const { id, outs } = await d.create(inputs);
      expect(id).toBe(`${idPrefix}${identifier}`);
      expect(sent()).toEqual(["POST /ng/api/connectors"]);
      expect(outs).toMatchObject({ ...inputs, type: "DockerRegistry", createdAt: expect.any(Number) });
      expect(outs.spec).toMatchObject({
        dockerRegistryUrl: docker.url,
        providerType: "DockerHub",
        auth: { type: "UsernamePassword", spec: { username: "ci", passwordRef: "account.dockerhub_pat" } },
      });
      const live = await platform.connectors.get(identifier, query);
      expect(live.connector).toMatchObject({
        identifier,
        name: nameOf(identifier),
        type: "DockerRegistry",
        tags: { team: "platform" },
      });
    });

    it("reads it back unchanged, and diffs as no change", async () => {
      const { inputs, id, outs } = await createdConnector();
      const read = await d.read(id, outs);
      expect(read.props).toEqual(outs);
      expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    });

    it("updates the spec in place with one read and one PUT (a full replace)", async () => {
      const { identifier, id, outs } = await createdConnector();
      const next = (await d.check({}, updatedFor(identifier))).inputs;
      expect(await d.diff(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
      reset();
      const updated = (await d.update(id, outs, next)).outs;
      expect(sent()).toEqual([`GET /ng/api/connectors/${identifier}`, "PUT /ng/api/connectors"]);
      expect((await platform.connectors.get(identifier, query)).connector.spec).toMatchObject({
        dockerRegistryUrl: "https://registry.example.test/v2/",
        providerType: "Other",
        auth: { type: "Anonymous" },
      });
      expect(await d.diff(id, updated, next)).toMatchObject({ changes: false });
    });

    it("refresh picks up an out-of-band change", async () => {
      const { identifier, inputs, id, outs } = await createdConnector(updatedFor);
      const live = (await platform.connectors.get(identifier, query)).connector;
      await platform.connectors.update({
        name: live.name,
        identifier,
        ...(live.orgIdentifier ? { orgIdentifier: live.orgIdentifier } : {}),
        ...(live.projectIdentifier ? { projectIdentifier: live.projectIdentifier } : {}),
        description: "changed by hand",
        tags: {},
        type: live.type,
        spec: live.spec,
      });
      const read = await d.read(id, outs);
      expect(read.props).toMatchObject({ description: "changed by hand", tags: {} });
      expect(read.inputs).toMatchObject({ description: "changed by hand" });
      expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: true, replaces: [] });
      const updated = (await d.update(id, read.props!, inputs)).outs;
      expect(updated).toMatchObject({ description: "Public images", tags: { team: "platform" } });
    });

    it("refresh after an out-of-band delete reports it gone (the service's 400 RESOURCE_NOT_FOUND_EXCEPTION)", async () => {
      const { identifier, id, outs } = await createdConnector(updatedFor);
      await platform.connectors.delete(identifier, query);
      expect((await d.read(id, outs)).id).toBeUndefined();
    });

    it("deletes, and deleting again succeeds", async () => {
      const { identifier, id, outs } = await createdConnector(updatedFor);
      await d.delete(id, outs);
      await expect(platform.connectors.get(identifier, query)).rejects.toMatchObject({ kind: "not-found" });
      await expect(d.delete(id, outs)).resolves.toBeUndefined();
    });

    it("refuses a duplicate without adopt and adopts it with adopt: true", async () => {
      const identifier = fresh();
      const inputs = (await d.check({}, updatedFor(identifier))).inputs;
      await platform.connectors.create({
        ...(idPrefix ? { orgIdentifier: "default" } : {}),
        ...(idPrefix.includes("payments") ? { projectIdentifier: "payments" } : {}),
        identifier,
        name: "By hand",
        description: "",
        tags: {},
        type: "DockerRegistry",
        spec: { dockerRegistryUrl: docker.url, providerType: "DockerHub", auth: { type: "Anonymous" } },
      } as never);
      await expect(d.create(inputs)).rejects.toThrow(`connector "${identifier}"`);
      reset();
      const adopted = await d.create({ ...inputs, adopt: true });
      expect(sent()).toEqual([`GET /ng/api/connectors/${identifier}`, "PUT /ng/api/connectors"]);
      expect(adopted.outs).toMatchObject({ name: nameOf(identifier), adopt: true });
      await d.delete(adopted.id, adopted.outs);
    });
  });

  it("manages a generic connector and replaces it when its type changes", async () => {
    const identifier = `repo_${slug(via)}`;
    const generic = {
      type: "Bitbucket",
      spec: { url: "https://bitbucket.example.test/acme", connectionType: "Account" },
    };
    const inputs = (await d.check({}, { org: "default", identifier, name: `Repo ${via}`, generic })).inputs;
    const { id, outs } = await d.create(inputs);
    expect(outs).toMatchObject({ type: "Bitbucket", generic, spec: generic.spec });
    expect((await d.read(id, outs)).props).toEqual(outs);
    expect(await d.diff(id, outs, inputs)).toMatchObject({ changes: false });
    const asDocker = (
      await d.check({}, { org: "default", identifier, name: `Repo ${via}`, dockerRegistry: docker })
    ).inputs;
    expect(await d.diff(id, outs, asDocker)).toMatchObject({
      changes: true,
      replaces: ["type"],
      deleteBeforeReplace: true,
    });
    await d.delete(id, outs);
  });
});

describe.each(MODES)("Connector create whose response was lost (%s)", (mode) => {
  it("finds the connector it created instead of creating a duplicate", async () => {
    const identifier = `lost_hub_${mode === "direct" ? "d" : "g"}`;
    const inputs = (
      await drivers[mode].check(
        {},
        { org: "default", identifier, name: `Lost ${mode}`, dockerRegistry: docker },
      )
    ).inputs;
    reset();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/connectors$/ }, { lose: true });
    const created = await drivers[mode].create(inputs);
    expect(created.id).toBe(`default/${identifier}`);
    expect(sent()).toEqual(["POST /ng/api/connectors", `GET /ng/api/connectors/${identifier}`]);
    await drivers[mode].delete(created.id, created.outs);
  });
});

// ---------------------------------------------------------------------------------------------
// Typed connectors: GitHub, Git, Kubernetes cluster, AWS, GCP, Helm HTTP repository

const github = {
  url: "https://github.com/acme",
  connectionType: "Account",
  validationRepo: "acme/checkout",
  auth: { username: "ci-bot", tokenRef: "account.github_pat" },
  apiAccess: { tokenRef: "account.github_pat" },
};
const git = {
  url: "git@git.example.test:acme/checkout.git",
  connectionType: "Repo",
  branch: "main",
  auth: { type: "Ssh", sshKeyRef: "org.git_ssh_key" },
};
const kubernetes = {
  credential: {
    type: "ManualConfig",
    masterUrl: "https://k8s.example.test:6443",
    serviceAccountTokenRef: "account.k8s_sa_token",
  },
};
const aws = {
  credential: {
    type: "ManualConfig",
    accessKeyRef: "account.aws_access_key",
    secretKeyRef: "account.aws_secret_key",
  },
  region: "eu-west-1",
};
const gcp = { credential: { type: "InheritFromDelegate" }, delegateSelectors: ["gke-delegate"] };
const httpHelm = {
  url: "https://charts.example.test",
  auth: { type: "UsernamePassword", usernameRef: "account.helm_user", passwordRef: "account.helm_password" },
};

/** Each typed kind: its input, its wire type, and the exact wire spec its defaults give. */
const typedKinds: [field: string, input: Props, type: string, spec: Props][] = [
  [
    "github",
    github,
    "Github",
    {
      url: "https://github.com/acme",
      type: "Account",
      validationRepo: "acme/checkout",
      authentication: {
        type: "Http",
        spec: { type: "UsernameToken", spec: { username: "ci-bot", tokenRef: "account.github_pat" } },
      },
      apiAccess: { type: "Token", spec: { tokenRef: "account.github_pat" } },
      delegateSelectors: [],
      executeOnDelegate: true,
    },
  ],
  [
    "git",
    git,
    "Git",
    {
      url: "git@git.example.test:acme/checkout.git",
      connectionType: "Repo",
      branchName: "main",
      type: "Ssh",
      spec: { sshKeyRef: "org.git_ssh_key" },
      delegateSelectors: [],
      executeOnDelegate: true,
    },
  ],
  [
    "kubernetes",
    kubernetes,
    "K8sCluster",
    {
      credential: {
        type: "ManualConfig",
        spec: {
          masterUrl: "https://k8s.example.test:6443",
          auth: { type: "ServiceAccount", spec: { serviceAccountTokenRef: "account.k8s_sa_token" } },
        },
      },
      delegateSelectors: [],
    },
  ],
  [
    "aws",
    aws,
    "Aws",
    {
      credential: {
        type: "ManualConfig",
        spec: { accessKeyRef: "account.aws_access_key", secretKeyRef: "account.aws_secret_key" },
        region: "eu-west-1",
      },
      delegateSelectors: [],
      executeOnDelegate: true,
    },
  ],
  [
    "gcp",
    gcp,
    "Gcp",
    {
      credential: { type: "InheritFromDelegate" },
      delegateSelectors: ["gke-delegate"],
      executeOnDelegate: true,
    },
  ],
  [
    "httpHelm",
    httpHelm,
    "HttpHelmRepo",
    {
      helmRepoUrl: "https://charts.example.test",
      auth: {
        type: "UsernamePassword",
        spec: { usernameRef: "account.helm_user", passwordRef: "account.helm_password" },
      },
      delegateSelectors: [],
    },
  ],
];

describe("Typed connector check", () => {
  const base = { org: "default", identifier: "typed", name: "Typed" };
  const rows: [label: string, inputs: Props, property: string, reason: string][] = [
    [
      "a GitHub token in clear",
      {
        ...base,
        github: {
          ...github,
          auth: { username: "ci-bot", tokenRef: "ghp_16C7e42F292c6912E7710c838347Ae178B4a" },
        },
      },
      "github.auth.tokenRef",
      "tokenRef looks like a literal token, not a secret reference: store it in a Secret and give its reference (account.<id>, org.<id> or <id>)",
    ],
    [
      "a fine-grained GitHub token as API access",
      {
        ...base,
        github: { ...github, apiAccess: { tokenRef: "github_pat_11ABCDEFG0123456789_abcdefghijklmnop" } },
      },
      "github.apiAccess.tokenRef",
      "tokenRef looks like a literal token",
    ],
    [
      "an AWS access key id as its reference",
      { ...base, aws: { ...aws, credential: { ...aws.credential, accessKeyRef: "AKIAIOSFODNN7EXAMPLE" } } },
      "aws.credential.accessKeyRef",
      "accessKeyRef looks like a literal token",
    ],
    [
      "a secret key with characters no reference has",
      {
        ...base,
        aws: { ...aws, credential: { ...aws.credential, secretKeyRef: "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" } },
      },
      "aws.credential.secretKeyRef",
      "the name of a stored secret, not its value",
    ],
    [
      "GitHub without a token",
      { ...base, github: { ...github, auth: { username: "ci-bot" } } },
      "github.auth.tokenRef",
      "tokenRef must be a secret reference such as account.github_token",
    ],
    [
      "GitHub with both username and usernameRef",
      { ...base, github: { ...github, auth: { ...github.auth, usernameRef: "account.gh_user" } } },
      "github.auth",
      "exactly one of username and usernameRef is required",
    ],
    [
      "GitHub connection type unknown",
      { ...base, github: { ...github, connectionType: "Org" } },
      "github.connectionType",
      'connectionType must be "Account" or "Repo"',
    ],
    [
      "Git over SSH without a key",
      { ...base, git: { ...git, auth: { type: "Ssh" } } },
      "git.auth.sshKeyRef",
      "sshKeyRef must be a secret reference such as account.git_ssh_key",
    ],
    [
      "Git auth type unknown",
      { ...base, git: { ...git, auth: { type: "Token" } } },
      "git.auth.type",
      'auth.type must be "Http" or "Ssh"',
    ],
    [
      "Kubernetes without a service account token",
      {
        ...base,
        kubernetes: { credential: { type: "ManualConfig", masterUrl: "https://k8s.example.test" } },
      },
      "kubernetes.credential.serviceAccountTokenRef",
      "serviceAccountTokenRef must be a secret reference such as account.k8s_sa_token",
    ],
    [
      "Kubernetes inheriting from a delegate it does not name",
      { ...base, kubernetes: { credential: { type: "InheritFromDelegate" } } },
      "kubernetes.delegateSelectors",
      "a InheritFromDelegate credential needs at least one delegate selector",
    ],
    [
      "AWS IRSA without a delegate",
      { ...base, aws: { credential: { type: "Irsa" } } },
      "aws.delegateSelectors",
      "a Irsa credential needs at least one delegate selector",
    ],
    [
      "AWS with both access key and its reference",
      { ...base, aws: { ...aws, credential: { ...aws.credential, accessKey: "AKIDEXAMPLE" } } },
      "aws.credential",
      "exactly one of accessKey and accessKeyRef is required",
    ],
    [
      "GCP without a key",
      { ...base, gcp: { credential: { type: "ManualConfig" } } },
      "gcp.credential.secretKeyRef",
      "secretKeyRef must be a secret reference such as account.gcp_sa_key",
    ],
    [
      "Helm repository URL not http(s)",
      { ...base, httpHelm: { ...httpHelm, url: "oci://charts.example.test" } },
      "httpHelm.url",
      "url must be an http(s) URL",
    ],
    [
      "two typed specs",
      { ...base, github, git },
      "dockerRegistry",
      "exactly one of dockerRegistry, github, git, kubernetes, aws, gcp, httpHelm and generic is required",
    ],
  ];

  itRefusesWithNoRequest(rows, () => ({ bed, drivers }));
});

describe("Generic connector of a type that has a typed kind", () => {
  const base = { org: "default", identifier: "generic_typed", name: "Generic typed" };
  const failuresOf = async (generic: Props) => (await impl.check({}, { ...base, generic })).failures;

  it.each<[label: string, generic: Props, failures: { property: string; reason: string }[]]>([
    [
      "a Github spec without its connection type and authentication",
      { type: "Github", spec: { url: "https://github.com/acme" } },
      [
        { property: "generic.spec.type", reason: "type is required (connector type Github)" },
        {
          property: "generic.spec.authentication",
          reason: "authentication is required (connector type Github)",
        },
      ],
    ],
    [
      "a github spec (the type in any case) with an unknown connection type and a token in clear",
      {
        type: "github",
        spec: {
          url: "https://github.com/acme",
          type: "Org",
          authentication: {
            type: "Http",
            spec: {
              type: "UsernameToken",
              spec: { username: "ci", tokenRef: "ghp_16C7e42F292c6912E7710c838347Ae178B4a" },
            },
          },
        },
      },
      [
        {
          property: "generic.spec.type",
          reason: 'type must be one of "Account", "Repo" (connector type Github)',
        },
        {
          property: "generic.spec.authentication.spec.spec.tokenRef",
          reason:
            "tokenRef looks like a literal token, not a secret reference: store it in a Secret and give its reference (account.<id>, org.<id> or <id>)",
        },
      ],
    ],
    [
      "a K8sCluster manual credential without its master URL and auth",
      { type: "K8sCluster", spec: { credential: { type: "ManualConfig", spec: {} } } },
      [
        {
          property: "generic.spec.credential.spec.masterUrl",
          reason: "masterUrl is required (connector type K8sCluster)",
        },
        {
          property: "generic.spec.credential.spec.auth",
          reason: "auth is required (connector type K8sCluster)",
        },
      ],
    ],
    [
      "an Aws credential of an unknown type",
      { type: "Aws", spec: { credential: { type: "Manual" } } },
      [
        {
          property: "generic.spec.credential.type",
          reason: 'type "Manual" is not one of the options (connector type Aws)',
        },
      ],
    ],
    [
      "a DockerRegistry spec with a bad URL and no provider type or auth",
      { type: "DockerRegistry", spec: { dockerRegistryUrl: "index.docker.io" } },
      [
        {
          property: "generic.spec.dockerRegistryUrl",
          reason: "dockerRegistryUrl must be a URL (connector type DockerRegistry)",
        },
        {
          property: "generic.spec.providerType",
          reason: "providerType is required (connector type DockerRegistry)",
        },
        { property: "generic.spec.auth", reason: "auth is required (connector type DockerRegistry)" },
      ],
    ],
    [
      "an HttpHelmRepo spec without its URL",
      { type: "HttpHelmRepo", spec: { url: "https://charts.example.test" } },
      [
        {
          property: "generic.spec.helmRepoUrl",
          reason: "helmRepoUrl is required (connector type HttpHelmRepo)",
        },
      ],
    ],
  ])("refuses %s at check, naming each field", async (_label, generic, failures) => {
    expect(await failuresOf(generic)).toEqual(failures);
  });

  it.each(typedKinds)(
    "accepts the complete %s wire spec given as generic, as it is",
    async (_f, _i, type, spec) => {
      const result = await impl.check({}, { ...base, generic: { type, spec } });
      expect(result.failures).toBeUndefined();
      expect(result.inputs?.generic).toEqual({ type, spec });
    },
  );

  it("leaves a type without a typed kind to the service", async () => {
    expect(await failuresOf({ type: "Bitbucket", spec: {} })).toBeUndefined();
  });

  itRefusesWithNoRequest(
    [
      [
        "an incomplete generic Github spec",
        { ...base, generic: { type: "Github", spec: { url: "https://github.com/acme", type: "Account" } } },
        "generic.spec.authentication",
        "authentication is required (connector type Github)",
      ],
    ],
    () => ({ bed, drivers }),
  );
});

describe("Typed connector wire mapping", () => {
  it.each(typedKinds)(
    "writes %s as the API's spec and reads it back to the same inputs",
    async (field, input, type, spec) => {
      const inputs = (await impl.check({}, { identifier: "typed", name: "Typed", [field]: input })).inputs!;
      const wire = wireSpec(inputs);
      expect(wire).toEqual({ type, spec });
      expect(typedFromWire(type, wire.spec)).toEqual({ field, value: (inputs as Props)[field] });
    },
  );

  it("reads a spec that does not fit its typed kind as generic", () => {
    expect(
      typedFromWire("Github", { url: "https://github.com/acme", authentication: { type: "Ssh" } }),
    ).toBeUndefined();
    expect(typedFromWire("Bitbucket", {})).toBeUndefined();
  });
});

describe("Typed connector lifecycle", () => {
  const bodies = () => bed.proxy.writes().map((r) => (r.body as { connector: Props }).connector);

  it.each(typedKinds)(
    "creates a %s connector with one POST of the exact body, reads it back as no change, and updates one field with one PUT",
    async (field, input, type, spec) => {
      const d = drivers.direct;
      const identifier = unique(`typed_${field.toLowerCase()}`, "_");
      const program = {
        org: "default",
        project: "payments",
        identifier,
        name: `Typed ${identifier}`,
        [field]: input,
      };
      const inputs = (await d.check({}, program)).inputs;
      reset();
      const { id, outs } = await d.create(inputs);
      expect(sent()).toEqual(["POST /ng/api/connectors"]);
      expect(bodies()).toEqual([
        {
          accountIdentifier: bed.emu.accountId,
          name: `Typed ${identifier}`,
          identifier,
          description: "",
          orgIdentifier: "default",
          projectIdentifier: "payments",
          tags: {},
          type,
          spec,
        },
      ]);
      expect(outs).toMatchObject({ [field]: (inputs as Props)[field], type, spec });
      const read = await d.read(id, outs);
      expect(read.props).toEqual(outs);
      expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false, replaces: [] });

      const next = (await d.check({}, { ...program, description: "one field" })).inputs;
      expect(await d.diff(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
      reset();
      const updated = (await d.update(id, outs, next)).outs;
      expect(sent()).toEqual([`GET /ng/api/connectors/${identifier}`, "PUT /ng/api/connectors"]);
      expect(bodies()).toEqual([expect.objectContaining({ description: "one field", type, spec })]);
      expect(await d.diff(id, updated, next)).toMatchObject({ changes: false });

      // Imported by id alone, the live spec comes back as the typed input.
      expect((await d.read(id, {})).inputs).toMatchObject({ [field]: (inputs as Props)[field] });
      await d.delete(id, updated);
    },
  );
});
