/**
 * Organizations of the platform API: `POST /ng/api/organizations`, `GET|PUT|DELETE
 * /ng/api/organizations/{identifier}`, `GET /ng/api/organizations` (Go SDK
 * `harness/nextgen/api_organization.go`: PostOrganization, GetOrganization, PutOrganization and
 * DeleteOrganization with an optional `If-Match` "Version number of the Organization",
 * GetOrganizationList with `pageIndex`/`pageSize`). The body is the SDK's `OrganizationRequest`:
 * `{organization: {identifier, name, description, tags}}`; organizations live at account level, so
 * the only scope is the account.
 * @module
 */
import { EntityApi, type EntityCtx, type EntityKind, entityRoutes, jsonWrite } from "./entity-api";
import { platformPart } from "./part";
import { OrganizationBody, OrganizationData } from "./schemas";

/** Organizations have no scope but the account: reads, deletes and lists take none. */
export type OrganizationScope = Record<never, never>;

/** The organizations of an account. */
export type OrganizationsApi = EntityApi<OrganizationScope, OrganizationBody, OrganizationData>;

const organizationKind: EntityKind<OrganizationScope, OrganizationBody> = {
  label: "organization",
  routes: entityRoutes("/ng/api/organizations", OrganizationData, OrganizationData, { putById: true }),
  paging: ["pageIndex", "pageSize"],
  ifMatch: true,
  scopeQuery: () => ({}),
  writeOf: (r, body) =>
    jsonWrite(r, OrganizationBody, body, "organization", (organization) => ({
      identifier: organization.identifier,
      query: {},
      body: { organization },
    })),
};

/**
 * The organizations namespace of a client.
 * @example
 * await platform.organizations.create({ identifier: "payments_org", name: "Payments" });
 * for await (const o of platform.organizations.list({})) console.log(o.organization.identifier);
 */
export const organizationsApi = (ctx: EntityCtx): OrganizationsApi => new EntityApi(ctx, organizationKind);

/** Organizations. */
export const part = platformPart("organizations", organizationsApi);
