import { describe, expect, it } from "vitest";
import { connectorNoAnonymousProduction } from "../../policy/connectors";
import { CONNECTOR_TYPE, PROJECT_TYPE } from "../../provider/types";
import { runStackPolicy, stackUrn } from "./util";

const project = (identifier: string, tags: Record<string, string>, org = "default") => ({
  type: PROJECT_TYPE,
  props: { org, identifier, name: identifier, tags },
});
const connector = (props: Record<string, unknown>, name = "conn") => ({ type: CONNECTOR_TYPE, name, props });
const docker = (auth?: object) => ({
  url: "https://registry.hub.docker.com/v2/",
  providerType: "DockerHub",
  ...(auth ? { auth } : {}),
});

describe("connector-no-anonymous-production", () => {
  it("reports an anonymous registry in a project tagged env: production (auth defaults to Anonymous)", async () => {
    const reports = await runStackPolicy(connectorNoAnonymousProduction, [
      project("payments", { env: "Production" }),
      connector({
        org: "default",
        project: "payments",
        identifier: "dockerhub",
        name: "Docker Hub",
        dockerRegistry: docker(),
      }),
    ]);
    expect(reports).toEqual([
      {
        message:
          'connector "dockerhub" in project "payments" uses anonymous registry auth, and the project is production (tagged env: production): use UsernamePassword auth with a passwordRef',
        urn: stackUrn(CONNECTOR_TYPE, "conn"),
      },
    ]);
  });

  it("reports a connector of a project listed in the config, with the wire shape (scope, spec.auth)", async () => {
    const reports = await runStackPolicy(
      connectorNoAnonymousProduction,
      [
        connector({
          scope: { org: "retail", project: "shop" },
          identifier: "quay",
          type: "DockerRegistry",
          spec: { auth: { type: "Anonymous" } },
        }),
      ],
      { productionProjects: ["retail/shop"] },
    );
    expect(reports.map((r) => r.message)).toEqual([
      'connector "quay" in project "shop" uses anonymous registry auth, and the project is production (listed in productionProjects): use UsernamePassword auth with a passwordRef',
    ]);
  });

  it.each<[string, object[], object]>([
    [
      "authenticated access in production",
      [
        project("payments", { env: "production" }),
        connector({
          org: "default",
          project: "payments",
          identifier: "c",
          dockerRegistry: docker({ type: "UsernamePassword", username: "ci", passwordRef: "account.pw" }),
        }),
      ],
      {},
    ],
    [
      "anonymous access in a project not tagged production",
      [
        project("sandbox", { env: "dev" }),
        connector({ org: "default", project: "sandbox", identifier: "c", dockerRegistry: docker() }),
      ],
      {},
    ],
    [
      "anonymous access at account level",
      [connector({ identifier: "c", dockerRegistry: docker() })],
      { productionProjects: ["payments"] },
    ],
    [
      "a project of another organization",
      [
        project("payments", { env: "production" }, "other"),
        connector({ org: "default", project: "payments", identifier: "c", dockerRegistry: docker() }),
      ],
      {},
    ],
    [
      "no production tags configured",
      [
        project("payments", { env: "production" }),
        connector({ org: "default", project: "payments", identifier: "c", dockerRegistry: docker() }),
      ],
      { productionProjectTags: {} },
    ],
    [
      "a generic connector with other auth",
      [
        project("payments", { env: "production" }),
        connector({
          org: "default",
          project: "payments",
          identifier: "c",
          generic: { type: "Git", spec: { auth: { type: "Http" } } },
        }),
      ],
      {},
    ],
  ])("passes %s", async (_, resources, config) => {
    expect(await runStackPolicy(connectorNoAnonymousProduction, resources as never, config)).toEqual([]);
  });
});
