/**
 * Change requests (ref admin §1.1 "change requests", §9.2): where an environment requires
 * approvals (`changePermissions.areApprovalsRequired`) the service refuses direct definition and
 * segment writes with 403, and a change is submitted instead, then approved or rejected by another
 * key (the submitter can never approve its own request) or withdrawn by its submitter. The shapes
 * are those of the official Python client, splitapiclient 3.5.9
 * `microclients/change_request_microclient.py` (`create`, `update_status`, `list` following
 * `nextMarker`) and `resources/change_request.py`.
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { AdminApiPart, adminPart } from "./part";
import {
  type CHANGE_REQUEST_STATUSES,
  ChangeRequest,
  ChangeRequestCreate,
  ChangeRequestStatusBody,
} from "./schemas";

/** Change requests per request of the list (the most a page holds). */
export const CHANGE_REQUESTS_PAGE_MAX = 100;

/** One page of the change request list: `{data, nextMarker, previousMarker, limit, count}`. */
export const ChangeRequestPage = z.looseObject({
  data: z.array(ChangeRequest),
  nextMarker: z.string().nullable(),
  previousMarker: z.string().nullable().optional(),
  limit: z.number().int(),
  count: z.number().int(),
});

/** The change request routes (ref §1.1). */
export const changeRequestEndpoints = {
  list: route("GET /internal/api/v2/changeRequests", ChangeRequestPage),
  get: route("GET /internal/api/v2/changeRequests/{id}", ChangeRequest),
  create: route("POST /internal/api/v2/changeRequests/ws/{wsId}/environments/{environment}", ChangeRequest),
  /** Moves a REQUESTED change: APPROVED (then applied and PUBLISHED), REJECTED or WITHDRAWN. */
  setStatus: route("PUT /internal/api/v2/changeRequests/{id}", ChangeRequest),
} as const;

/** A status a change request can be moved to. */
export type ChangeRequestDecision = ChangeRequestStatusBody["status"];

/** Change requests: `admin.changeRequests`. */
export class ChangeRequestsApi extends AdminApiPart {
  /**
   * Every change request the key can see, following `nextMarker`, optionally of one status and
   * one environment (by id or name).
   * @param options.pageSize Change requests per request, 1 to 100 (default 100).
   * @example
   * for await (const cr of admin.changeRequests.list({ status: "REQUESTED", environmentId: prod.id })) console.log(cr.id, cr.title);
   */
  list(
    options: {
      status?: (typeof CHANGE_REQUEST_STATUSES)[number];
      environmentId?: string;
      pageSize?: number;
    } = {},
  ): AsyncIterable<ChangeRequest> {
    const { status, environmentId } = options;
    const query = { status, environmentId };
    return this.markerPages(
      changeRequestEndpoints.list,
      {},
      options.pageSize,
      CHANGE_REQUESTS_PAGE_MAX,
      query,
    );
  }

  /**
   * A change request by id.
   * @throws NotFoundError when there is no such change request.
   */
  async get(id: string): Promise<ChangeRequest> {
    return this.request(changeRequestEndpoints.get, { id });
  }

  /**
   * Submits a change of one object (a flag's definition as `split`, a segment's keys as
   * `segment`, ...) in an environment. Where the environment requires approvals it waits as
   * REQUESTED; elsewhere the service applies it at once.
   * @throws ConflictError when a REQUESTED change of the same object and environment is open.
   * @example
   * const cr = await admin.changeRequests.create(ws.id, prod.id, {
   *   split: { name: "new-checkout", ...definition },
   *   operationType: "UPDATE",
   *   title: "Roll out to 10%",
   *   comment: "ticket 42",
   *   approvers: ["lead@example.com"],
   * });
   */
  async create(wsId: string, environment: string, body: ChangeRequestCreate): Promise<ChangeRequest> {
    return this.send(changeRequestEndpoints.create, { wsId, environment }, ChangeRequestCreate, body);
  }

  /**
   * Moves a REQUESTED change request to `status`, with a comment.
   * @throws ValidationError (400) when it is no longer REQUESTED; an ApiError of status 403 when
   *   the submitter approves or rejects its own request, or another key withdraws it.
   */
  async setStatus(id: string, status: ChangeRequestDecision, comment?: string): Promise<ChangeRequest> {
    return this.send(
      changeRequestEndpoints.setStatus,
      { id },
      ChangeRequestStatusBody,
      { status, comment },
      "status body",
    );
  }

  /** Approves a change request (not its submitter's key): the service applies it and publishes it. */
  async approve(id: string, comment?: string): Promise<ChangeRequest> {
    return this.setStatus(id, "APPROVED", comment);
  }

  /** Rejects a change request (not its submitter's key). */
  async reject(id: string, comment?: string): Promise<ChangeRequest> {
    return this.setStatus(id, "REJECTED", comment);
  }

  /** Withdraws a change request (its submitter's key only). */
  async withdraw(id: string, comment?: string): Promise<ChangeRequest> {
    return this.setStatus(id, "WITHDRAWN", comment);
  }
}

/** Change requests of approval-gated environments: submit, list, approve, reject, withdraw. */
export const part = adminPart("changeRequests", (core) => new ChangeRequestsApi(core));
